import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/*
 * The layers of api/src (domain/README.md), checked on the source: every import of every module
 * (type-only ones too), read with the TypeScript parser.
 *
 *   routes/ (with http/, schemas/, auth/, rate-limit/)  ->  domain/  ->  chain/, db/
 *
 * - domain/** imports nothing from routes/, http/ or schemas/ (schemas/ may import the domain's
 *   types, never the reverse); inside it, domain/reads/ imports only reads/, shared/, db/ and
 *   chain/, and domain/shared/ only shared/, db/ and chain/.
 * - db/** and chain/** import nothing from domain/, routes/, http/ or schemas/.
 * - Nothing below the routes (domain/, db/, chain/, notifications/, keeper/, background/,
 *   crypto/) has a string with an /api/ URL in it: the routes own the URLs (routes/paths.ts).
 * - No import cycle among the modules of api/src.
 *
 * Tests (*.test.ts) are left out of the layer rules: a test may drive the whole app. Nothing
 * imports a test, so none can be in a cycle.
 */

const SRC = dirname(fileURLToPath(import.meta.url));

/** One import: from a module to another, both relative to api/src, and the line it is on. */
interface Edge {
  from: string;
  to: string;
  line: number;
}

/** A module's imports of other modules of api/src, and its string literals that hold an /api/ URL. */
interface Module {
  path: string;
  imports: Edge[];
  apiUrls: { line: number; text: string }[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const posix = (path: string) => path.split(sep).join("/");

function readModule(file: string): Module {
  const path = posix(relative(SRC, file));
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const imports: Edge[] = [];
  const apiUrls: Module["apiUrls"] = [];
  const importOf = (specifier: ts.Node | undefined, at: ts.Node) => {
    if (!specifier || !ts.isStringLiteralLike(specifier) || !specifier.text.startsWith(".")) return;
    const target = resolve(dirname(file), specifier.text);
    if (!target.startsWith(SRC + sep)) return;
    imports.push({ from: path, to: posix(relative(SRC, target)), line: lineOf(at) });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      importOf(node.moduleSpecifier, node);
      return;
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      importOf(node.arguments[0], node);
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) importOf(node.argument.literal, node);
    const text =
      ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)
        ? node.text
        : undefined;
    if (text?.includes("/api/")) apiUrls.push({ line: lineOf(node), text });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { path, imports, apiUrls };
}

const isTest = (path: string) => path.endsWith(".test.ts");
const under = (path: string, ...folders: string[]) => folders.some((folder) => path.startsWith(`${folder}/`));
const show = (edge: Edge) => `${edge.from}:${edge.line} -> ${edge.to}`;

/** A layer rule: the imports of the modules it covers that it forbids. */
interface Rule {
  name: string;
  covers: (path: string) => boolean;
  forbids: (target: string) => boolean;
}

const HTTP_SIDE = ["routes", "http", "schemas"];

const RULES: Rule[] = [
  {
    name: "domain/** imports nothing from routes/, http/, schemas/",
    covers: (path) => under(path, "domain"),
    forbids: (target) => under(target, ...HTTP_SIDE) || target === "app.ts",
  },
  {
    name: "domain/reads/** imports only domain/reads/, domain/shared/, db/, chain/",
    covers: (path) => under(path, "domain/reads"),
    forbids: (target) => !under(target, "domain/reads", "domain/shared", "db", "chain"),
  },
  {
    name: "domain/shared/** imports only domain/shared/, db/, chain/",
    covers: (path) => under(path, "domain/shared"),
    forbids: (target) => !under(target, "domain/shared", "db", "chain"),
  },
  {
    name: "db/** imports nothing from domain/, routes/, http/, schemas/",
    covers: (path) => under(path, "db"),
    forbids: (target) => under(target, "domain", ...HTTP_SIDE),
  },
  {
    name: "chain/** imports nothing from domain/, routes/, http/, schemas/",
    covers: (path) => under(path, "chain"),
    forbids: (target) => under(target, "domain", ...HTTP_SIDE),
  },
  {
    // The domain's dependencies are typed by deps.ts: through it the domain would know HTTP too.
    name: "deps.ts imports nothing from routes/, http/, schemas/",
    covers: (path) => path === "deps.ts",
    forbids: (target) => under(target, ...HTTP_SIDE),
  },
  {
    name: "schemas/** imports nothing from routes/",
    covers: (path) => under(path, "schemas"),
    forbids: (target) => under(target, "routes"),
  },
];

/** The folders below the routes, where no string may hold an /api/ URL. */
const BELOW_ROUTES = ["domain", "db", "chain", "notifications", "keeper", "background", "crypto"];

/** Each rule's broken imports, as `from:line -> to`. */
function layerBreaks(edges: readonly Edge[], rules: readonly Rule[] = RULES): string[] {
  return rules.flatMap((rule) =>
    edges
      .filter((edge) => !isTest(edge.from) && rule.covers(edge.from) && rule.forbids(edge.to))
      .map((edge) => `${rule.name}: ${show(edge)}`),
  );
}

/**
 * Every import cycle, one path per strongly connected component (Tarjan's algorithm, then a
 * shortest way back to its first module), as `a.ts -> b.ts -> a.ts`.
 */
function importCycles(edges: readonly Edge[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, []);
    if (!next.has(to)) next.set(to, []);
    next.get(from)?.push(to);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfLoop = next.get(v)?.includes(v);
      if (component.length > 1 || selfLoop) components.push(component);
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) connect(v);
  return components.map((component) => {
    const members = new Set(component);
    const start = [...component].sort()[0] as string;
    // Breadth first inside the component: the shortest way from `start` back to it.
    const cameFrom = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0) {
      const v = queue.shift() as string;
      for (const w of next.get(v) ?? []) {
        if (!members.has(w) || cameFrom.has(w)) continue;
        cameFrom.set(w, v);
        if (w === start) queue.length = 0;
        else queue.push(w);
      }
      if (cameFrom.has(start)) break;
    }
    const path = [start];
    for (let v = cameFrom.get(start); v !== undefined && v !== start; v = cameFrom.get(v)) path.unshift(v);
    path.unshift(start);
    return path.join(" -> ");
  });
}

describe("the layers of api/src", () => {
  const modules = sourceFiles(SRC).map(readModule);
  const edges = modules.flatMap((module) => module.imports);

  it("reads the modules and their imports", () => {
    expect(modules.length).toBeGreaterThan(100);
    expect(edges.some((edge) => edge.from === "app.ts" && edge.to === "domain/use-cases.ts")).toBe(true);
    expect(edges.some((edge) => edge.from === "db/schema.ts" && edge.to === "db/column-values.ts")).toBe(true);
  });

  it("points every import one way: routes -> domain -> chain/db", () => {
    expect(layerBreaks(edges)).toEqual([]);
  });

  it("has no /api/ URL below the routes", () => {
    const urls = modules
      .filter((module) => !isTest(module.path) && under(module.path, ...BELOW_ROUTES))
      .flatMap((module) => module.apiUrls.map((url) => `${module.path}:${url.line}: ${JSON.stringify(url.text)}`));
    expect(urls).toEqual([]);
  });

  it("has no import cycle", () => {
    expect(importCycles(edges)).toEqual([]);
  });
});

describe("the layer checks catch", () => {
  const edge = (from: string, to: string): Edge => ({ from, to, line: 1 });

  it("an import against a layer, naming it", () => {
    expect(
      layerBreaks([
        edge("domain/offers/offers.ts", "schemas/offers.ts"),
        edge("db/schema.ts", "domain/offers/offer-state.ts"),
        edge("domain/reads/kept-tiers.ts", "domain/agents/agents.ts"),
        edge("routes/offers/read.ts", "domain/offers/offers.ts"),
        edge("domain/offers/offers.test.ts", "routes/offers/read.ts"),
      ]),
    ).toEqual([
      "domain/** imports nothing from routes/, http/, schemas/: domain/offers/offers.ts:1 -> schemas/offers.ts",
      "domain/reads/** imports only domain/reads/, domain/shared/, db/, chain/: domain/reads/kept-tiers.ts:1 -> domain/agents/agents.ts",
      "db/** imports nothing from domain/, routes/, http/, schemas/: db/schema.ts:1 -> domain/offers/offer-state.ts",
    ]);
  });

  it("a cycle, with its path", () => {
    expect(
      importCycles([
        edge("a.ts", "b.ts"),
        edge("b.ts", "c.ts"),
        edge("c.ts", "a.ts"),
        edge("c.ts", "d.ts"),
        edge("d.ts", "d.ts"),
        edge("e.ts", "a.ts"),
      ]),
    ).toEqual(["d.ts -> d.ts", "a.ts -> b.ts -> c.ts -> a.ts"]);
  });
});
