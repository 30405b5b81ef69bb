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

/**
 * A bar above the reference with the way back to the web app and to the guide (Scalar's page has
 * neither), and the page's language, which Scalar's template does not name.
 */
const WAY_BACK = `<nav aria-label="Marketplace" style="display:flex;gap:1.5rem;flex-wrap:wrap;padding:.6rem 1rem;font:15px/1.4 system-ui,sans-serif;background:#f4f5f7;border-bottom:1px solid #d0d4da">
      <a href="/" style="color:#0b4fb3">← Back to the marketplace</a>
      <a href="/skill.md" style="color:#0b4fb3">Guide for agents (skill.md)</a>
    </nav>`;

export function withWayBack(html: string): string {
  const body = "<body>";
  if (!html.includes(body)) throw new Error("docs: Scalar's page has no <body>");
  return html.replace("<html>", '<html lang="en">').replace(body, `${body}\n    ${WAY_BACK}`);
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
    const page = (await render(c, async () => {})) as Response;
    return c.html(withWayBack(await page.text()), page.status as 200);
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
