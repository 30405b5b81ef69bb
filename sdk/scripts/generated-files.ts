import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { actionOperationsOf, actionSources, GENERATED_HEADER, HAND_WRITTEN, modulePathOf } from "./actions.ts";
import { enumsSource } from "./enums.ts";
import { type OpenApiDocument, withoutAliases } from "./openapi-document.ts";
import { idempotentOperationsOf, idempotentOperationsSource, typesOfDocument } from "./openapi-types.ts";

/*
 * Every file of the SDK generated from the API's OpenAPI document, and the check that the committed
 * ones are what the document generates (the generator writes them: scripts/generate-types.ts).
 */

/** The SDK's folder. */
export const sdkRoot = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = path.dirname(sdkRoot);

/**
 * The generated files of the document, by path relative to the SDK's folder (e.g. src/enums.ts):
 * of its operations but the aliases (openapi-document.ts `withoutAliases`).
 */
export async function generatedFiles(apiDocument: unknown): Promise<Map<string, string>> {
  const openApi = withoutAliases(apiDocument as OpenApiDocument);
  const document: unknown = openApi;
  const files = new Map<string, string>();
  // openapi-typescript's output, which biome leaves alone (biome.json).
  files.set("src/openapi-types.ts", await typesOfDocument(document));
  // Written as biome would (the API's tests compare it with the committed file as it is).
  files.set("src/idempotent-operations.ts", await idempotentOperationsSource(document));
  const formatted: [string, string][] = [
    ["src/enums.ts", enumsSource(openApi)],
    ...[...actionSources(openApi, new Set(idempotentOperationsOf(document)))].map(
      ([file, source]): [string, string] => [`src/actions/${file}`, source],
    ),
  ];
  // As the repository's biome writes them (its lint checks the committed files too).
  const sources = await biomeFormat(formatted);
  for (const [index, [file]] of formatted.entries()) files.set(file, sources[index] as string);
  return files;
}

/** Files of src/actions, relative to the SDK's folder. */
export function actionFilesOnDisk(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(path.join(sdkRoot, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(`${dir}/${entry.name}`) : [`${dir}/${entry.name}`],
    );
  return existsSync(path.join(sdkRoot, "src/actions")) ? walk("src/actions") : [];
}

/** The hand-written action modules (HAND_WRITTEN), relative to the SDK's folder. */
export function handWrittenFiles(document: unknown): string[] {
  return actionOperationsOf(withoutAliases(document as OpenApiDocument))
    .filter((action) => action.handWritten)
    .map((action) => `src/actions/${modulePathOf(action)}`);
}

/**
 * How the committed files differ from what the document generates, one line per problem (none: they
 * match): a generated file changed or missing; a hand-written action missing, marked generated, or
 * without its three exports; a file in src/actions that is neither (an operation the API dropped).
 */
export async function differencesFromDocument(document: unknown): Promise<string[]> {
  const problems: string[] = [];
  const files = await generatedFiles(document);
  for (const [file, source] of files) {
    const target = path.join(sdkRoot, file);
    if (!existsSync(target)) problems.push(`${file}: missing`);
    else if (readFileSync(target, "utf8") !== source)
      problems.push(`${file}: differs from what the document generates`);
  }
  const handWritten = handWrittenFiles(document);
  for (const file of handWritten) {
    const target = path.join(sdkRoot, file);
    if (!existsSync(target)) {
      problems.push(`${file}: missing (written by hand: ${HAND_WRITTEN[path.basename(file, ".ts")]})`);
      continue;
    }
    const source = readFileSync(target, "utf8");
    if (source.startsWith(GENERATED_HEADER)) problems.push(`${file}: written by hand, yet marked generated`);
    const name = path.basename(file, ".ts");
    const Name = name[0]?.toUpperCase() + name.slice(1);
    for (const [what, pattern] of [
      [name, new RegExp(`^export (async )?function\\*? ?${name}\\(\\s*client: Client\\b`, "m")],
      [`${Name}Parameters`, new RegExp(`^export (type|interface) ${Name}Parameters\\b`, "m")],
      [`${Name}ReturnType`, new RegExp(`^export (type|interface) ${Name}ReturnType\\b`, "m")],
    ] as const) {
      if (!pattern.test(source)) problems.push(`${file}: does not export ${what}`);
    }
  }
  for (const file of actionFilesOnDisk()) {
    if (!files.has(file) && !handWritten.includes(file)) {
      problems.push(`${file}: neither generated from the document nor a hand-written action`);
    }
  }
  return problems;
}

/**
 * The sources as the repository's biome writes them (formatted, imports sorted): in a temporary
 * folder with the repository's biome settings (one run for all of them, not one per file).
 */
async function biomeFormat(sources: [string, string][]): Promise<string[]> {
  const folder = mkdtempSync(path.join(tmpdir(), "sdk-generated-"));
  try {
    const settings = JSON.parse(readFileSync(path.join(repoRoot, "biome.json"), "utf8"));
    // The repository's git ignores and file list do not apply to the temporary folder.
    delete settings.$schema;
    delete settings.vcs;
    delete settings.files;
    writeFileSync(path.join(folder, "biome.json"), JSON.stringify(settings));
    for (const [file, source] of sources) {
      mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
      writeFileSync(path.join(folder, file), source);
    }
    const biome = createRequire(path.join(repoRoot, "package.json")).resolve("@biomejs/biome/bin/biome");
    await new Promise<void>((resolvePromise, reject) =>
      execFile(
        process.execPath,
        [biome, "check", "--write", "--no-errors-on-unmatched", "src"],
        { cwd: folder, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => (error ? reject(new Error(`biome: ${stdout}${stderr}`)) : resolvePromise()),
      ),
    );
    return sources.map(([file]) => readFileSync(path.join(folder, file), "utf8"));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
