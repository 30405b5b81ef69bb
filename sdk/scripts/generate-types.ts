/**
 * Writes the SDK's files generated from the OpenAPI document a running API serves (`pnpm start`
 * first; API_URL, default http://127.0.0.1:3000): src/openapi-types.ts (openapi-typescript),
 * src/idempotent-operations.ts (the writes that declare an Idempotency-Key), src/enums.ts (the
 * document's value lists) and src/actions (one module per operation, and the index); removes the
 * generated action modules of operations the API no longer has. The client is typed, named and
 * retries from them, so the SDK follows the API's routes; tests fail if the committed files differ
 * from what the API's document generates (`--check`: only say so, exit 1).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GENERATED_HEADER } from "./actions.ts";
import {
  actionFilesOnDisk,
  differencesFromDocument,
  generatedFiles,
  handWrittenFiles,
  sdkRoot,
} from "./generated-files.ts";

const apiUrl = process.env.API_URL ?? "http://127.0.0.1:3000";
const document = await (await fetch(`${apiUrl}/api/openapi.json`)).json();

if (process.argv.includes("--check")) {
  const problems = await differencesFromDocument(document);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
  console.log(`the generated files are what ${apiUrl}/api/openapi.json generates`);
} else {
  const files = await generatedFiles(document);
  const handWritten = handWrittenFiles(document);
  for (const file of actionFilesOnDisk()) {
    const stale = !files.has(file) && !handWritten.includes(file);
    if (stale && readFileSync(path.join(sdkRoot, file), "utf8").startsWith(GENERATED_HEADER)) {
      rmSync(path.join(sdkRoot, file));
      console.log(`removed ${file}`);
    }
  }
  for (const [file, source] of files) {
    mkdirSync(path.dirname(path.join(sdkRoot, file)), { recursive: true });
    writeFileSync(path.join(sdkRoot, file), source);
  }
  console.log(`wrote ${files.size} files from ${apiUrl}/api/openapi.json`);
  const problems = await differencesFromDocument(document);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
}
