import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { Hono } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "./env.ts";
import { setPageSecurityHeaders } from "./security-headers.ts";

/*
 * The web app (web/, built into web/dist by Vite) served at / on the API's own origin, so the
 * browser's session cookie needs no CORS. A page URL the app routes itself (/marketplace,
 * /agents/<id>) answers index.html when the browser asks for HTML; the hashed files under /assets/
 * never change, so browsers keep them for a year. The API's own URLs are never answered here. Any
 * other URL is a 404: a file we do not have (`/notes.md`, `/robots.txt` before it exists) is the
 * API's 404 JSON, and a page the app does not have is the app's own "Page not found", sent as 404.
 * The build writes `<file>.br` and `<file>.gz` beside each text file (web/vite.config.ts): a browser
 * that accepts one gets it, compressed once at build rather than at every request.
 */

/**
 * The web app's pages, as web/src/app.tsx routes them (web-app.test.ts holds the two lists equal):
 * `:name` is one path segment.
 */
export const APP_PAGES = [
  "/",
  "/marketplace",
  "/listings/:id",
  "/agents",
  "/agents/:id",
  "/leaderboard",
  "/owner",
  "/owner/agents/:id",
  "/owner/transactions/:id",
  "/desk",
  "/desk/:transactionId",
] as const;

const APP_PAGE = new RegExp(`^(${APP_PAGES.map((page) => page.replace(/:[A-Za-z]+/g, "[^/]+")).join("|")})/?$`);

/** Whether the path is one of the web app's pages. */
export const isAppPage = (urlPath: string) => APP_PAGE.test(urlPath);

/** A path whose last segment has an extension (`/notes.md`): a file, never a page. */
const FILE_URL = /\.[A-Za-z0-9]+$/;

/** URLs that belong to the API: unknown ones stay its 404 JSON, never the web app. */
const API_URL = /^\/(api|docs|mcp)(\/|$)|^\/(skill|heartbeat)\.md$/;

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".webmanifest": "application/manifest+json",
  ".wasm": "application/wasm",
};

/** The encodings the build writes beside a file, in the order we prefer them. */
const ENCODINGS = [
  { name: "br", suffix: ".br" },
  { name: "gzip", suffix: ".gz" },
] as const;

/** The files the build may have compressed (web/vite.config.ts): their answer varies with Accept-Encoding. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map|webmanifest)$/i;

/**
 * The content codings an Accept-Encoding header takes, by weight (RFC 9110 12.5.3): `br;q=0`
 * refuses br, `*` stands for every coding it does not name, and no header takes none of them.
 */
export function acceptedEncodings(header: string | undefined): Map<string, number> {
  const weights = new Map<string, number>();
  for (const part of (header ?? "").split(",")) {
    const [token, ...params] = part.trim().toLowerCase().split(";");
    if (!token) continue;
    const q = params.map((param) => /^\s*q=(.*?)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    // A weight that does not read as a number takes nothing.
    const weight = q === undefined ? 1 : Number(q || "x");
    weights.set(token, Number.isFinite(weight) ? weight : 0);
  }
  const accepted = new Map<string, number>();
  for (const { name } of ENCODINGS) {
    const weight = weights.get(name) ?? weights.get("*") ?? 0;
    if (weight > 0) accepted.set(name, weight);
  }
  return accepted;
}

/** The encodings to try for a request, best first: the highest weight, br before gzip when equal. */
function encodingsToTry(header: string | undefined) {
  const accepted = acceptedEncodings(header);
  return ENCODINGS.filter(({ name }) => accepted.has(name)).sort(
    (a, b) => (accepted.get(b.name) ?? 0) - (accepted.get(a.name) ?? 0),
  );
}

/** Hashed build output: its name changes with its content. */
const IMMUTABLE = "public, max-age=31536000, immutable";

export interface WebAppOptions {
  /** The build folder (absolute): index.html, assets/, and the files of web/public. */
  distDir: string;
  /** The Content-Security-Policy of its pages. */
  policy: string;
}

/**
 * The file of `distDir` that the URL path names, or undefined when it names none: a path that does
 * not decode, holds a NUL, a backslash or a `..` segment (however encoded), or leads outside the folder.
 */
export function fileInDist(distDir: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0") || decoded.includes("\\") || decoded.split("/").includes("..")) return undefined;
  const root = path.resolve(distDir);
  const file = path.resolve(root, `.${path.posix.normalize(`/${decoded}`)}`);
  return file.startsWith(root + path.sep) ? file : undefined;
}

async function readRegularFile(file: string | undefined): Promise<Buffer | undefined> {
  if (!file) return undefined;
  const info = await stat(file).catch(() => undefined);
  return info?.isFile() ? readFile(file) : undefined;
}

/** Whether the request would take an HTML page: a browser's navigation, or a client that takes anything. */
function acceptsHtml(accept: string | undefined): boolean {
  return accept === undefined || accept.includes("text/html") || accept.includes("*/*");
}

const contentTypeOf = (file: string) => CONTENT_TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream";

/** What / says while web/dist has not been built: how to build it (the API itself works). */
const notBuiltPage = html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Agent marketplace: the web app is not built</title>
  </head>
  <body>
    <h1>The web app is not built yet</h1>
    <p>The API is running. To build the web app, run at the repository's root:</p>
    <pre>pnpm --filter @agent-marketplace/web build</pre>
    <p>(<code>pnpm install</code> and <code>pnpm start</code> build it too.) Then reload this page.</p>
    <p>Meanwhile: <a href="/docs">the API reference</a>, <a href="/api/info">/api/info</a>, <a href="/skill.md">/skill.md</a>.</p>
  </body>
</html>`;

/** The web app's routes: mount last, at "/", after every API route. */
export function webAppRoutes({ distDir, policy }: WebAppOptions) {
  const app = new Hono<AppEnv>();
  app.get("*", async function serveWebApp(c) {
    const urlPath = c.req.path;
    if (API_URL.test(urlPath)) return c.notFound();
    const isIndex = urlPath === "/" || urlPath === "/index.html";

    /** The build's file at this URL, compressed if the client takes it, or undefined if there is none. */
    async function serveFile(cacheControl: string): Promise<Response | undefined> {
      const file = fileInDist(distDir, urlPath);
      const content = await readRegularFile(file);
      if (!file || !content) return undefined;
      c.header("Cache-Control", cacheControl);
      c.header("X-Content-Type-Options", "nosniff");
      c.header("Content-Type", contentTypeOf(file));
      if (!COMPRESSIBLE.test(file)) return c.body(new Uint8Array(content), 200);
      c.header("Vary", "Accept-Encoding");
      for (const encoding of encodingsToTry(c.req.header("accept-encoding"))) {
        const encoded = await readRegularFile(file + encoding.suffix);
        if (!encoded) continue;
        c.header("Content-Encoding", encoding.name);
        return c.body(new Uint8Array(encoded), 200);
      }
      return c.body(new Uint8Array(content), 200);
    }

    if (urlPath.startsWith("/assets/")) return (await serveFile(IMMUTABLE)) ?? c.notFound();

    // A file of web/public at the top of the build (favicon.ico, robots.txt), never index.html itself.
    if (!isIndex) {
      const served = await serveFile("public, max-age=3600");
      if (served) return served;
    }

    if (FILE_URL.test(urlPath) && !isIndex) return c.notFound();
    if (urlPath !== "/" && !acceptsHtml(c.req.header("accept"))) return c.notFound();
    // Read at each request: a rebuild while the API runs is served at once.
    const index = await readFile(path.join(distDir, "index.html"), "utf8").catch(() => undefined);
    setPageSecurityHeaders(c, policy);
    // The page names the current hashed bundle: always ask again.
    c.header("Cache-Control", "no-cache");
    // Not one of its pages: the app shows its "Page not found", and the status says so.
    return c.html(index ?? notBuiltPage, isIndex || isAppPage(urlPath) ? 200 : 404);
  });
  return app;
}
