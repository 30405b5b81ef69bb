/**
 * Resident memory of the stack's processes during a benchmark (Linux: /proc). Every process this
 * one started, directly or not, is read each interval (VmRSS of /proc/<pid>/status) and counted
 * under the part of the stack its command line names; a part made of several processes (Postgres
 * and its backends) is the sum of them. Processes of other programs on the machine are not counted.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { Table } from "./results.ts";

/** Parts of the stack, matched on the command line in this order. */
const PARTS: [name: string, matches: (commandLine: string) => boolean][] = [
  ["API (src/main.ts)", (c) => c.includes("src/main.ts")],
  ["indexer (ponder start)", (c) => c.includes("ponder")],
  ["Hardhat node", (c) => c.includes("hardhat")],
  ["Postgres (all processes)", (c) => /\bpostgres\b/.test(c)],
];

interface ProcessInfo {
  pid: number;
  parent: number;
  commandLine: string;
}

function readProcesses(): ProcessInfo[] {
  const processes: ProcessInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent is the 4th field of stat, after the command name in parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      processes.push({ pid: Number(entry), parent, commandLine });
    } catch {
      // Gone since the listing.
    }
  }
  return processes;
}

function descendantsOf(root: number, processes: ProcessInfo[]): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  let parents = new Set([root]);
  while (parents.size > 0) {
    const children = processes.filter((p) => parents.has(p.parent));
    found.push(...children);
    parents = new Set(children.map((p) => p.pid));
  }
  return found;
}

/** VmRSS in KiB, or 0 for a process that is gone or a kernel thread. */
function residentKib(pid: number): number {
  try {
    const match = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

export interface MemorySampler {
  /** Stops sampling; the peak and mean RSS of each part seen, as a report table. */
  stop(workload: string): Table;
}

export function sampleMemory(intervalMs = 1_000): MemorySampler {
  const samples = new Map<string, number[]>();
  const sample = () => {
    const totals = new Map<string, number>();
    for (const info of descendantsOf(process.pid, readProcesses())) {
      const part = PARTS.find(([, matches]) => matches(info.commandLine))?.[0];
      if (part) totals.set(part, (totals.get(part) ?? 0) + residentKib(info.pid));
    }
    for (const [part, kib] of totals) samples.set(part, [...(samples.get(part) ?? []), kib]);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    stop(workload) {
      clearInterval(timer);
      const mib = (kib: number) => Math.round(kib / 1024);
      const rows = PARTS.flatMap(([part]) => {
        const values = samples.get(part);
        if (!values?.length) return [];
        const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
        return [[part, mib(Math.max(...values)), mib(mean), values.length]];
      });
      return {
        title: "Memory (RSS) of each process",
        workload: `${workload}; VmRSS sampled every ${intervalMs / 1_000} s`,
        columns: ["process", "peak MiB", "mean MiB", "samples"],
        rows,
      };
    },
  };
}
