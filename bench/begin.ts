/**
 * First step of `pnpm bench`: forgets the sections of an earlier run and notes when this one
 * started, so that the report can state the whole run's duration.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { clearSections, RESULTS_DIR } from "./results.ts";

clearSections();
mkdirSync(RESULTS_DIR, { recursive: true });
writeFileSync(path.join(RESULTS_DIR, "started-at.txt"), `${new Date().toISOString()}\n`);
