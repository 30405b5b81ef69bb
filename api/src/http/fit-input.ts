import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./env.ts";
import { ApiError } from "./errors.ts";

/*
 * Input Postgres cannot hold is refused before any route sees it, for every route at once: a
 * string with U+0000 (text and jsonb refuse it: a 500 deep in a query) or a lone UTF-16 surrogate
 * (the driver writes text as UTF-8 and silently turns one into U+FFFD; jsonb refuses its `\ud800`
 * escape), in the path, the query string or a JSON body, keys included; and a JSON body nested
 * deeper than MAX_JSON_DEPTH (a recursive walk of it, by zod or JSON.stringify, would overflow the
 * stack). JSON is the only body any route reads; other bodies are left to the routes' validators,
 * which ignore them.
 */

/**
 * How deep a JSON body may nest objects and arrays, the body itself the first level: `{"metadata":
 * {"a": 1}}` is 2 deep. No route's body needs more than a few levels; metadata has the rest.
 */
export const MAX_JSON_DEPTH = 32;

/** U+0000, or a UTF-16 surrogate that is not half of a pair. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is the very character refused.
const UNFIT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNFIT_ALL = new RegExp(UNFIT.source, "g");

/**
 * What a URL needs to carry U+0000 or a lone surrogate: `%00`, or `%ED` (the lead byte of the UTF-8
 * of U+D000 to U+DFFF, surrogates among them). A URL holds nothing unescaped beyond ASCII, so one
 * without either is fit and its query is not parsed here (most are not).
 */
const MAY_BE_UNFIT_ENCODED = /%00|%ed/i;

/** The media types Hono's JSON validator reads (hono/validator): others never reach a route. */
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/** A field's name as the answer shows it: unfit characters written as `\uXXXX`. */
const shown = (name: string) =>
  name.replace(UNFIT_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);

function invalidCharacters(field: string): ApiError {
  const message = "must not contain U+0000 or an unpaired UTF-16 surrogate";
  return new ApiError("invalid_characters", `Invalid request: ${field} ${message}`, {
    field,
    issues: [{ field, message }],
  });
}

function tooDeep(field: string): ApiError {
  const message = `nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`;
  return new ApiError("too_deep", `Invalid request: ${field} ${message}`, {
    field,
    max_depth: MAX_JSON_DEPTH,
    issues: [{ field, message }],
  });
}

/** Each segment of the URL's path as a route's parameter would read it (decoded). */
function refuseUnfitPath(url: string): void {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  const query = url.indexOf("?", start);
  const path = url.slice(start, query === -1 ? undefined : query);
  if (!path.includes("%")) return;
  for (const segment of path.split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      continue; // Not decodable: a route reads it as it is, and it is fit.
    }
    if (UNFIT.test(decoded)) throw invalidCharacters("path");
  }
}

/** Every query parameter, name and values, as the routes' validators read them. */
function refuseUnfitQuery(queries: Record<string, string[]>): void {
  for (const [name, values] of Object.entries(queries)) {
    if (UNFIT.test(name) || values.some((value) => UNFIT.test(value))) throw invalidCharacters(`query.${shown(name)}`);
  }
}

/** A container of the body still to visit, and where it sits (its path, built only for an answer). */
interface Node {
  value: object;
  depth: number;
  parent: Node | undefined;
  key: string;
}

const pathOf = (node: Node | undefined, last?: string): string => {
  const keys: string[] = last === undefined ? [] : [last];
  for (let at = node; at; at = at.parent) keys.push(at.key);
  return keys.reverse().map(shown).join(".");
};

/**
 * Walks a parsed JSON body without recursion (a body may nest 100,000 deep within the size
 * limit): the first unfit string or key, or the first container past MAX_JSON_DEPTH, is refused.
 */
export function refuseUnfitJson(body: unknown): void {
  if (typeof body === "string" && UNFIT.test(body)) throw invalidCharacters("body");
  if (typeof body !== "object" || body === null) return;
  const stack: Node[] = [{ value: body, depth: 1, parent: undefined, key: "body" }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const isArray = Array.isArray(node.value);
    for (const [key, child] of Object.entries(node.value)) {
      if (!isArray && UNFIT.test(key)) throw invalidCharacters(pathOf(node, key));
      if (typeof child === "string") {
        if (UNFIT.test(child)) throw invalidCharacters(pathOf(node, key));
      } else if (typeof child === "object" && child !== null) {
        if (node.depth >= MAX_JSON_DEPTH) throw tooDeep(pathOf(node, key));
        stack.push({ value: child, depth: node.depth + 1, parent: node, key });
      }
    }
  }
}

/**
 * Refuses (400) a request to the API whose path, query string or JSON body holds what Postgres
 * cannot store, or whose JSON body nests too deep: `invalid_characters` or `too_deep`, with the
 * `field` (`path`, `query.keyword`, `body.metadata.a`). A body that is not JSON is left to the
 * route's validator (400 `bad_request`); a GET or HEAD's body is never read (the Node adapter
 * would build a whole Request for it).
 */
export function refuseUnfitInput(): MiddlewareHandler<AppEnv> {
  return async function refuseUnfit(c, next) {
    refuseUnfitPath(c.req.url);
    const query = c.req.url.indexOf("?");
    if (query !== -1 && MAY_BE_UNFIT_ENCODED.test(c.req.url.slice(query))) refuseUnfitQuery(c.req.queries());
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const mediaType = c.req.header("content-type")?.split(";")[0]?.trim() ?? "";
    if (!JSON_MEDIA_TYPE.test(mediaType)) return next();
    let body: unknown;
    try {
      // Read through the body limit, and kept: the route's validator reads the same text.
      body = await c.req.json();
    } catch (error) {
      if (error instanceof SyntaxError) return next(); // Malformed: the validator answers it.
      throw error; // Over the body limit (413), or the client went away.
    }
    refuseUnfitJson(body);
    return next();
  };
}
