import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "./error-codes.ts";

/*
 * The codes the API can answer, read from its source: the code argument of every error it
 * constructs (`new ConflictError(…, "offer_exists")`, `super(message, "unauthorized")`, a
 * parameter's default `code = "bad_request"`) and of every error answer (`errorAnswer(c, "busy",
 * …)`), whichever class: an argument's position is read from the constructor's parameter named
 * `code`, inherited along `extends`. A literal, a conditional of literals or a constant naming one.
 * ApiError and errorAnswer take an ErrorCode (the compiler checks them); the domain's errors take
 * any string, so this is what keeps the table whole.
 */

const SRC = fileURLToPath(new URL("../", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

interface Found {
  code: string;
  where: string;
}

function codesInSource(): Found[] {
  const files = sourceFiles(SRC).map((path) =>
    ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true),
  );
  // Each error class: its parent, and the position of its constructor's `code` parameter.
  const classes = new Map<string, { parent?: string; codeAt?: number }>();
  const visitClasses = (node: ts.Node) => {
    if (ts.isClassDeclaration(node) && node.name) {
      const parent = node.heritageClauses
        ?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword)
        ?.types[0]?.expression.getText();
      const ctor = node.members.find(ts.isConstructorDeclaration);
      const codeAt = ctor?.parameters.findIndex((parameter) => parameter.name.getText() === "code");
      classes.set(node.name.text, {
        parent,
        codeAt: ctor ? (codeAt === -1 ? undefined : codeAt) : Number.NaN,
      });
    }
    ts.forEachChild(node, visitClasses);
  };
  for (const file of files) visitClasses(file);
  /** Where `name`'s constructor takes the code (NaN: the class declares no constructor, its parent's). */
  const codeIndexOf = (name: string | undefined): number | undefined => {
    const known = name === undefined ? undefined : classes.get(name);
    if (!known) return undefined;
    return Number.isNaN(known.codeAt) ? codeIndexOf(known.parent) : known.codeAt;
  };
  const isError = (name: string | undefined): boolean =>
    name !== undefined && (name === "Error" || isError(classes.get(name)?.parent));

  const found: Found[] = [];
  for (const file of files) {
    const where = (node: ts.Node) =>
      `${relative(SRC, file.fileName)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    /** The string literals an expression can be: a literal, a conditional of them, a local constant. */
    const literals = (expression: ts.Expression): ts.StringLiteralLike[] => {
      if (ts.isStringLiteralLike(expression)) return [expression];
      if (ts.isParenthesizedExpression(expression)) return literals(expression.expression);
      if (ts.isConditionalExpression(expression)) {
        return [...literals(expression.whenTrue), ...literals(expression.whenFalse)];
      }
      if (ts.isIdentifier(expression)) {
        const declarations: ts.VariableDeclaration[] = [];
        const collect = (node: ts.Node) => {
          if (ts.isVariableDeclaration(node) && node.name.getText() === expression.text) declarations.push(node);
          ts.forEachChild(node, collect);
        };
        collect(file);
        return declarations.flatMap((declaration) =>
          declaration.initializer ? literals(declaration.initializer) : [],
        );
      }
      return [];
    };
    const take = (expression: ts.Expression | undefined) => {
      for (const literal of expression ? literals(expression) : [])
        found.push({ code: literal.text, where: where(literal) });
    };
    const visit = (node: ts.Node) => {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && isError(node.expression.text)) {
        const at = codeIndexOf(node.expression.text);
        if (at !== undefined) take(node.arguments?.[at]);
      }
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword) {
        let owner: ts.Node | undefined = node.parent;
        while (owner && !ts.isClassDeclaration(owner)) owner = owner.parent;
        const parent = owner?.name ? classes.get(owner.name.text)?.parent : undefined;
        const at = isError(parent) ? codeIndexOf(parent) : undefined;
        if (at !== undefined) take(node.arguments[at]);
      }
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "errorAnswer") {
        take(node.arguments[1]);
      }
      if (
        ts.isParameter(node) &&
        node.name.getText() === "code" &&
        node.initializer &&
        ts.isConstructorDeclaration(node.parent)
      ) {
        take(node.initializer);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

describe("the table of error codes", () => {
  const found = codesInSource();

  it("reads the codes of the source (the reading itself works)", () => {
    const codes = new Set(found.map((f) => f.code));
    for (const code of [
      "bad_request",
      "unauthorized",
      "conflict",
      "offer_exists",
      "tx_reverted",
      "busy",
      "not_found",
    ]) {
      expect(codes, code).toContain(code);
    }
  });

  it("holds every code the API can answer", () => {
    const missing = found.filter((f) => !(ERROR_CODES as string[]).includes(f.code));
    expect(missing, "codes answered but missing from http/error-codes.ts").toEqual([]);
  });

  it("holds no code the API never answers", () => {
    const answered = new Set(found.map((f) => f.code));
    expect(ERROR_CODES.filter((code) => !answered.has(code))).toEqual([]);
  });
});
