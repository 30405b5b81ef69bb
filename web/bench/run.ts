/**
 * `pnpm bench` for the web app: what a person's browser downloads before the first page can run
 * (the JS and CSS that web/dist/index.html loads, gzip), and the time from navigation to the
 * marketplace's first listing painted, in a real headless Chromium, against the API serving
 * web/dist with 10,000 listings of 100 agents (the API read benchmark's data). Each visit is a fresh
 * browser context (empty cache, no cookies) on one of several marketplace URLs (tabs, filters,
 * keyword, sort), so no single cached answer carries the figure.
 *
 * Env: BENCH_LISTINGS (default 10000), BENCH_VISITS per URL (default 8). Goal: initial JS ≤ 200 kB gzip.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import chromium from "@sparticuz/chromium";
import { chromium as playwright } from "playwright-core";
import { type Server, startApi } from "../../api/bench/api-process.ts";
import { seedListings } from "../../api/bench/seed.ts";
import { createDatabase } from "../../api/src/db/client.ts";
import { migrateDatabase } from "../../api/src/migrate.ts";
import { writeSection } from "../../bench/results.ts";
import { startStack } from "../../indexer/test/stack.ts";

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 10_000);
const VISITS = Number(process.env.BENCH_VISITS ?? 8);
const JS_GOAL_KB = 200;
const webDir = fileURLToPath(new URL("..", import.meta.url));
const distDir = path.join(webDir, "dist");

/** The files index.html loads before anything runs: module scripts, their preloads, stylesheets. */
export function initialAssets(indexHtml: string): { js: string[]; css: string[] } {
  const attr = (tag: string, name: string) => new RegExp(`${name}="([^"]+)"`).exec(tag)?.[1];
  const tags = indexHtml.match(/<(script|link)\b[^>]*>/g) ?? [];
  const js = new Set<string>();
  const css = new Set<string>();
  for (const tag of tags) {
    if (tag.startsWith("<script") && attr(tag, "src")) js.add(attr(tag, "src") as string);
    if (tag.startsWith("<link") && /rel="modulepreload"/.test(tag)) js.add(attr(tag, "href") as string);
    if (tag.startsWith("<link") && /rel="stylesheet"/.test(tag)) css.add(attr(tag, "href") as string);
  }
  return { js: [...js], css: [...css] };
}

const kb = (bytes: number) => Math.round(bytes / 102.4) / 10;

function sizes(files: string[]) {
  let raw = 0;
  let gzip = 0;
  for (const file of files) {
    const content = readFileSync(path.join(distDir, file.replace(/^\//, "")));
    raw += content.length;
    gzip += gzipSync(content).length;
  }
  return { raw, gzip };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

const started = performance.now();
// What is measured is the production build of the sources as they are now.
execFileSync(
  process.execPath,
  [path.join(webDir, "node_modules", "vite", "bin", "vite.js"), "build", "--logLevel", "warn"],
  {
    cwd: webDir,
    env: { ...process.env, NODE_ENV: "production" },
    stdio: "inherit",
  },
);
const index = readFileSync(path.join(distDir, "index.html"), "utf8");
const assets = initialAssets(index);
const js = sizes(assets.js);
const css = sizes(assets.css);
console.log(
  `web bundle: initial JS ${kb(js.gzip)} kB gzip (${kb(js.raw)} kB raw, ${assets.js.length} files), CSS ${kb(css.gzip)} kB gzip`,
);

const stack = await startStack({ name: "web-bench" });
let api: Server | undefined;
// Without the package's --single-process (made for serverless functions): with it, the browser
// exits when the first visit's context closes.
const browser = await playwright.launch({
  executablePath: await chromium.executablePath(),
  args: chromium.args.filter((arg) => arg !== "--single-process"),
  headless: true,
});
try {
  await stack.startIndexer();
  const db = createDatabase(stack.postgres.url, { max: 4 });
  await migrateDatabase(db);
  await seedListings(db, { agents: 100, listings: LISTINGS });
  await db.$client.end();

  api = await startApi(stack, { WEB_DIST_DIR: distDir });
  const baseUrl = api.url;

  const urls = [
    "/marketplace",
    "/marketplace?type=BOUNTY",
    "/marketplace?category=coding&sort=cheapest",
    "/marketplace?q=solidity",
    "/marketplace?starter=true&sort=popular",
  ];
  const rows: (string | number)[][] = [];
  for (const url of urls) {
    const firstCard: number[] = [];
    const firstPaint: number[] = [];
    for (let visit = 0; visit < VISITS; visit++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      // The moment the first card is in the document, then the frame that shows it: after the next
      // animation frame's paint (a task queued from requestAnimationFrame runs after that paint).
      await page.addInitScript(() => {
        const observer = new MutationObserver(() => {
          if (!document.querySelector('[data-testid="listing-card"]')) return;
          observer.disconnect();
          requestAnimationFrame(() =>
            setTimeout(() => {
              (window as unknown as { firstCardAt: number }).firstCardAt = performance.now();
            }),
          );
        });
        observer.observe(document, { childList: true, subtree: true });
      });
      await page.goto(`${baseUrl}${url}`);
      await page.waitForFunction(() => (window as unknown as { firstCardAt?: number }).firstCardAt !== undefined);
      // First contentful paint may be reported a little after the card: wait for it (at most 2 s).
      const figures = await page.evaluate(async () => ({
        card: (window as unknown as { firstCardAt: number }).firstCardAt,
        paint: await new Promise<number | undefined>((resolve) => {
          new PerformanceObserver((list) => {
            const entry = list.getEntriesByName("first-contentful-paint")[0];
            if (entry) resolve(entry.startTime);
          }).observe({ type: "paint", buffered: true });
          setTimeout(() => resolve(undefined), 2000);
        }),
      }));
      firstCard.push(figures.card);
      if (figures.paint !== undefined) firstPaint.push(figures.paint);
      await context.close();
    }
    rows.push([
      url,
      firstPaint.length ? Math.round(percentile(firstPaint, 50)) : "not reported",
      Math.round(percentile(firstCard, 50)),
      Math.round(percentile(firstCard, 90)),
      Math.round(Math.max(...firstCard)),
    ]);
    console.log(
      `${url.padEnd(48)} first paint p50 ${rows.at(-1)?.[1]} ms, first listing p50 ${rows.at(-1)?.[2]} ms, p90 ${rows.at(-1)?.[3]} ms`,
    );
  }

  writeSection("6-web", {
    order: 6,
    title: "Web app",
    durationMs: performance.now() - started,
    tables: [
      {
        title: "What a browser downloads before the app runs",
        workload: `web/dist/index.html's module scripts, module preloads and stylesheets, gzip (zlib default level); goal ≤ ${JS_GOAL_KB} kB of JS. Owner, arbiter and wallet code load later, on demand.`,
        columns: ["asset", "files", "raw kB", "gzip kB", "goal"],
        rows: [
          ["initial JS", assets.js.length, kb(js.raw), kb(js.gzip), js.gzip <= JS_GOAL_KB * 1024 ? "met" : "MISSED"],
          ["CSS", assets.css.length, kb(css.raw), kb(css.gzip), "-"],
        ],
      },
      {
        title: "Navigation to the marketplace's first listing painted (headless Chromium, same machine)",
        workload: `${LISTINGS.toLocaleString("en-US")} listings of 100 agents; ${VISITS} visits per URL, each in a fresh browser context (empty cache); the API serves web/dist and the listings from the same process, loopback network, no throttling. "first listing" is the first frame after the first card is in the document.`,
        columns: ["URL", "first paint p50 ms", "first listing p50 ms", "p90 ms", "max ms"],
        rows,
      },
    ],
  });
} finally {
  await browser.close();
  await api?.stop();
  await stack.stop();
}
