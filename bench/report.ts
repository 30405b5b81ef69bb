/**
 * Last step of `pnpm bench`: merges the sections the benchmark scripts wrote into report.json and
 * report.md in the results folder, and prints the Markdown.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";
import path from "node:path";
import { type Cell, RESULTS_DIR, readSections, type Table } from "./results.ts";

const startedAtFile = path.join(RESULTS_DIR, "started-at.txt");
const startedAt = existsSync(startedAtFile) ? readFileSync(startedAtFile, "utf8").trim() : undefined;
const finishedAt = new Date().toISOString();
const durationMs = startedAt ? Date.parse(finishedAt) - Date.parse(startedAt) : undefined;
const sections = readSections();
const machine = {
  cpus: availableParallelism(),
  cpuModel: cpus()[0]?.model ?? "unknown",
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
};

const minutes = (ms: number) => `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1_000)} s`;
const cell = (value: Cell) =>
  typeof value === "number" ? value.toLocaleString("en-US") : value.replaceAll("|", "\\|");

function tableMarkdown(table: Table): string {
  return [
    `### ${table.title}`,
    "",
    `Workload: ${table.workload}`,
    "",
    `| ${table.columns.join(" | ")} |`,
    `| ${table.columns.map((_, i) => (table.rows.every((row) => typeof row[i] === "number") ? "---:" : "---")).join(" | ")} |`,
    ...table.rows.map((row) => `| ${row.map(cell).join(" | ")} |`),
  ].join("\n");
}

const markdown = [
  "# Benchmark report",
  "",
  `${startedAt ? `Started ${startedAt}, ` : ""}finished ${finishedAt}` +
    `${durationMs === undefined ? "" : `; the whole \`pnpm bench\` took ${minutes(durationMs)}`}.`,
  `Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}; ` +
    "every process of the stack and the load generators share these CPUs.",
  ...sections.flatMap((section) => [
    "",
    `## ${section.title}`,
    "",
    `Measured in ${minutes(section.durationMs)}.`,
    ...section.tables.flatMap((table) => ["", tableMarkdown(table)]),
  ]),
  "",
].join("\n");

writeFileSync(
  path.join(RESULTS_DIR, "report.json"),
  `${JSON.stringify({ startedAt, finishedAt, durationMs, machine, sections }, null, 2)}\n`,
);
writeFileSync(path.join(RESULTS_DIR, "report.md"), markdown);
console.log(`\n${markdown}`);
console.log(`Written to ${path.relative(process.cwd(), RESULTS_DIR) || "."}/report.json and report.md`);
