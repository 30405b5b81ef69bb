/**
 * The one report of `pnpm bench`: each benchmark script writes its section (tables, each stating
 * its workload) with `writeSection`; `bench/report.ts` merges them into report.json and report.md.
 *
 * Folder: BENCH_RESULTS_DIR, or bench/results/ at the root of the repository.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ?? fileURLToPath(new URL("./results/", import.meta.url));
const SECTIONS_DIR = path.join(RESULTS_DIR, "sections");

export type Cell = string | number;

/** A table of figures and the workload that produced them. */
export interface Table {
  title: string;
  workload: string;
  columns: string[];
  rows: Cell[][];
}

export interface Section {
  /** Orders the sections in the report (files are named after it). */
  order: number;
  title: string;
  tables: Table[];
  /** Wall time of the script that measured it. */
  durationMs: number;
}

export function writeSection(name: string, section: Section): void {
  mkdirSync(SECTIONS_DIR, { recursive: true });
  writeFileSync(path.join(SECTIONS_DIR, `${name}.json`), `${JSON.stringify(section, null, 2)}\n`);
}

export function readSections(): (Section & { name: string })[] {
  let files: string[] = [];
  try {
    files = readdirSync(SECTIONS_DIR).filter((file) => file.endsWith(".json"));
  } catch {
    return [];
  }
  return files
    .map((file) => ({
      name: file.replace(/\.json$/, ""),
      ...(JSON.parse(readFileSync(path.join(SECTIONS_DIR, file), "utf8")) as Section),
    }))
    .sort((a, b) => a.order - b.order);
}

/** Sections written by scripts run apart from `pnpm bench`: kept from one report to the next. */
const KEPT_SECTIONS = ["5-invariants.json"];

/** Forgets the sections of an earlier `pnpm bench`. */
export function clearSections(): void {
  let files: string[] = [];
  try {
    files = readdirSync(SECTIONS_DIR);
  } catch {
    return;
  }
  for (const file of files) if (!KEPT_SECTIONS.includes(file)) rmSync(path.join(SECTIONS_DIR, file), { force: true });
}
