/*
 * The parts of an OpenAPI 3 document the generators read, and how they read them (a `$ref` to a
 * component schema resolved, operations in document order).
 */

export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  example?: unknown;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  nullable?: boolean;
}

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  description?: string;
  schema?: Schema;
}

export interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
  /** On an alias of another operation (the live service's path for it): that operation's id. */
  "x-alias-of"?: string;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

export const METHODS = ["get", "post", "put", "patch", "delete"] as const;
export type Method = (typeof METHODS)[number];

export interface OperationEntry {
  path: string;
  method: Method;
  operation: Operation;
}

/** Every operation of the document, in its order. */
export function operationsOf(document: OpenApiDocument): OperationEntry[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({
      path,
      method,
      operation: item[method] as Operation,
    })),
  );
}

/** A schema with its `$ref` (to `#/components/schemas/…`) followed, as often as it takes. */
export function resolve(document: OpenApiDocument, schema: Schema): Schema {
  let current = schema;
  for (let depth = 0; current.$ref; depth++) {
    const name = refName(current.$ref);
    const target = document.components?.schemas?.[name];
    if (!target || depth > 20) throw new Error(`unresolved schema reference ${current.$ref}`);
    current = target;
  }
  return current;
}

export const refName = (ref: string) => ref.replace(/^#\/components\/schemas\//, "");

/**
 * The document without its aliases: operations marked `x-alias-of` are the live service's paths for
 * ours, for its clients. The SDK calls ours, so its files are generated from the rest: no action,
 * type or idempotent write of an alias.
 */
export function withoutAliases<D extends { paths: Record<string, Record<string, { "x-alias-of"?: string }>> }>(
  document: D,
): D {
  const paths = Object.entries(document.paths).flatMap(([path, item]) => {
    const kept = Object.fromEntries(
      Object.entries(item).filter(
        ([method, operation]) =>
          !(METHODS as readonly string[]).includes(method) || operation["x-alias-of"] === undefined,
      ),
    );
    return Object.keys(kept).some((key) => (METHODS as readonly string[]).includes(key)) ? [[path, kept] as const] : [];
  });
  return { ...document, paths: Object.fromEntries(paths) };
}
