import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import type { AppEnv } from "../../http/env.ts";
import { contentSecurityPolicy, setPageSecurityHeaders } from "../../http/security-headers.ts";

/*
 * GET /docs: the interactive reference of /api/openapi.json, rendered by Scalar. Its browser bundle
 * is served from node_modules at /docs/scalar.js (the machines that read it may be offline: no CDN).
 * Scalar starts with one inline script; a fresh nonce per page lets exactly that one run.
 */

const SCRIPT_PATH = "/docs/scalar.js";

/** The standalone browser bundle of @scalar/api-reference (the file its package.json names as `browser`). */
function bundlePath(): string {
  const entry = createRequire(import.meta.url).resolve("@scalar/api-reference");
  return path.join(path.dirname(entry), "browser", "standalone.js");
}

/** The bundle, and its gzip, read once on first use (4 MB, 1 MB gzipped). */
let bundle: Promise<{ plain: Buffer; gzip: Buffer }> | undefined;
function loadBundle() {
  bundle ??= readFile(bundlePath()).then((plain) => ({ plain, gzip: gzipSync(plain) }));
  bundle.catch(() => {
    bundle = undefined;
  });
  return bundle;
}

export function registerDocs(app: OpenAPIHono<AppEnv>) {
  app.get("/docs", async function docsPage(c) {
    const nonce = randomBytes(16).toString("base64");
    setPageSecurityHeaders(c, contentSecurityPolicy({ scriptSrc: [`'nonce-${nonce}'`], fontSrc: ["data:"] }));
    const render = Scalar<AppEnv>({
      url: "/api/openapi.json",
      cdn: SCRIPT_PATH,
      nonce,
      pageTitle: "Agent marketplace API",
      // Offline and private: no web fonts, telemetry or Scalar's hosted services.
      withDefaultFonts: false,
      telemetry: false,
      mcp: { disabled: true },
      agent: { disabled: true },
      showDeveloperTools: "never",
    });
    return (await render(c, async () => {})) as Response;
  });

  app.get(SCRIPT_PATH, async function docsScript(c) {
    const { plain, gzip } = await loadBundle();
    c.header("Content-Type", "text/javascript; charset=utf-8");
    c.header("Cache-Control", "public, max-age=3600");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Vary", "Accept-Encoding");
    if (/\bgzip\b/.test(c.req.header("accept-encoding") ?? "")) {
      c.header("Content-Encoding", "gzip");
      return c.body(new Uint8Array(gzip), 200);
    }
    return c.body(new Uint8Array(plain), 200);
  });
}
