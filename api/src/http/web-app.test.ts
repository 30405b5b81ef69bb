import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, type TestApp, testApp } from "../../test/harness.ts";
import { chainRpcOrigins, webAppPolicy } from "./security-headers.ts";
import { APP_PAGES, acceptedEncodings, fileInDist } from "./web-app.ts";

/*
 * The web app served at / from a build folder made here (an index.html and one hashed asset): page
 * URLs answer index.html with the Content-Security-Policy, assets are immutable, the API's own URLs
 * keep their JSON 404, nothing outside the folder is ever read, and without a build / says how to
 * make one.
 */

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/x.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = "console.log('the web app');";
/** A build's larger file, with the compressed copies the build writes beside it. */
const BIG_SCRIPT = Array.from({ length: 200 }, (_, i) => `export const line${i} = "the web app, line ${i}";`).join(
  "\n",
);
const ICON = `<svg xmlns="http://www.w3.org/2000/svg">${"<rect width='1' height='1'/>".repeat(80)}</svg>`;

let dist: string;
let t: TestApp;
let unbuilt: TestApp;
beforeAll(async () => {
  const root = mkdtempSync(path.join(tmpdir(), "web-dist-"));
  dist = path.join(root, "dist");
  mkdirSync(path.join(dist, "assets"), { recursive: true });
  writeFileSync(path.join(dist, "index.html"), INDEX);
  writeFileSync(path.join(dist, "assets", "x.js"), SCRIPT);
  writeFileSync(path.join(dist, "robots.txt"), "User-agent: *\n");
  for (const [file, content] of [
    [path.join(dist, "assets", "big.js"), BIG_SCRIPT],
    [path.join(dist, "icon.svg"), ICON],
  ] as const) {
    writeFileSync(file, content);
    writeFileSync(`${file}.br`, brotliCompressSync(content));
    writeFileSync(`${file}.gz`, gzipSync(content));
  }
  // A file beside the build that no URL may reach.
  writeFileSync(path.join(root, "secret.txt"), "not for the web");
  t = await testApp({ webDistDir: dist });
  unbuilt = await testApp({ webDistDir: path.join(root, "missing") });
});
afterAll(async () => {
  await t.close();
  await unbuilt.close();
  rmSync(path.dirname(dist), { recursive: true, force: true });
});

const page = (app: TestApp["app"], url: string) => app.request(url, { headers: { accept: "text/html,*/*;q=0.8" } });

function expectPageHeaders(response: Response) {
  expect(response.headers.get("content-type")).toMatch(/^text\/html/);
  expect(response.headers.get("content-security-policy")).toBe(webAppPolicy(t.config));
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("referrer-policy")).toBe("same-origin");
}

describe("the web app's pages", () => {
  for (const url of ["/", "/marketplace", `/agents/${randomUUID()}`, "/owner?tab=keys", "/desk/", "/index.html"]) {
    it(`${url} answers index.html with the security headers`, async () => {
      const response = await page(t.app, url);
      expect(response.status).toBe(200);
      expectPageHeaders(response);
      expect(response.headers.get("cache-control")).toBe("no-cache");
      expect(await response.text()).toBe(INDEX);
    });
  }

  it("/ answers the page to any client; another path only to one that takes HTML", async () => {
    expect((await t.app.request("/", { headers: { accept: "application/json" } })).status).toBe(200);
    const data = await t.app.request("/marketplace", { headers: { accept: "application/json" } });
    expect(data.status).toBe(404);
  });

  it("the policy allows only this origin's scripts, no inline script or eval, and no framing", () => {
    const policy = webAppPolicy(t.config);
    expect(policy).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
    );
  });

  it("off the local chain, the page may also reach the chain's https RPC (its origin only)", () => {
    expect(chainRpcOrigins({ chainId: 8453, rpcUrl: "https://base.example/v2/secret-key" })).toEqual([
      "https://mainnet.base.org",
      "https://base.example",
    ]);
    expect(webAppPolicy({ chainId: 84532, rpcUrl: "http://10.0.0.1:8545" })).toContain(
      "connect-src 'self' https://sepolia.base.org;",
    );
    expect(chainRpcOrigins({ chainId: 31337, rpcUrl: "https://base.example" })).toEqual([]);
  });
});

describe("the web app's files", () => {
  it("/assets/x.js is JavaScript, cached for a year as immutable", async () => {
    const response = await t.app.request("/assets/x.js");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await response.text()).toBe(SCRIPT);
  });

  it("a file at the top of the build is served as itself", async () => {
    const response = await t.app.request("/robots.txt");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
  });

  it("an unknown asset is 404, even for a browser (never the page in its place)", async () => {
    expect((await t.app.request("/assets/missing.js")).status).toBe(404);
    expect((await page(t.app, "/assets/missing.js")).status).toBe(404);
  });

  it("the API's unknown URLs stay 404 JSON", async () => {
    for (const url of ["/api/nope", "/api", "/docs/nope", "/mcp/nope"]) {
      const response = await page(t.app, url);
      expect(response.status, url).toBe(404);
      expect(await json(response), url).toMatchObject({ code: "not_found" });
    }
    expect((await page(t.app, "/api/stats")).headers.get("content-type")).toMatch(/application\/json/);
  });

  it("a file it does not have is 404 JSON, never the page (/heartbeat.md and /skill.md are the API's)", async () => {
    for (const url of ["/notes.md", "/HEARTBEAT.md", "/llms.txt", "/manifest.json", "/agents/x.md", "/assets.json"]) {
      for (const response of [await page(t.app, url), await t.app.request(url)]) {
        expect(response.status, url).toBe(404);
        expect(await json(response), url).toMatchObject({ code: "not_found" });
      }
    }
    for (const url of ["/heartbeat.md", "/skill.md"]) {
      const response = await page(t.app, url);
      expect(response.status, url).toBe(200);
      expect(response.headers.get("content-type"), url).toMatch(/^text\/markdown/);
    }
  });

  it("a page the app does not have is its page with a 404 status (the app says Page not found)", async () => {
    for (const url of ["/nope", "/owner/agents", "/listings", "/agents/a/b", "/desk/x/y"]) {
      const response = await page(t.app, url);
      expect(response.status, url).toBe(404);
      expectPageHeaders(response);
      expect(await response.text(), url).toBe(INDEX);
    }
  });

  it("knows exactly the pages web/src/app.tsx routes", () => {
    const app = readFileSync(path.resolve(import.meta.dirname, "../../../web/src/app.tsx"), "utf8");
    const routed = [...app.matchAll(/<Route path="([^"]+)"/g)].map(([, route]) => route);
    expect(routed.length).toBeGreaterThan(5);
    expect([...APP_PAGES].sort()).toEqual(routed.sort());
  });

  it("never reads outside the build folder", async () => {
    const attempts = [
      "/../package.json",
      "/assets/../../package.json",
      "/assets/..%2f..%2fpackage.json",
      "/assets/..%2f..%2fsecret.txt",
      "/assets/%2e%2e/%2e%2e/secret.txt",
      "/..%2fsecret.txt",
      "/assets/..%5c..%5csecret.txt",
      "/assets/%00x.js",
      "/assets/%E0%A4%A",
    ];
    for (const url of attempts) {
      const response = await page(t.app, url);
      const body = await response.text();
      expect(body, url).not.toContain("not for the web");
      expect(body, url).not.toContain('"name"');
      expect([200, 404], url).toContain(response.status);
      // Whatever answered 200 is the web app's page itself.
      if (response.status === 200) expect(body, url).toBe(INDEX);
    }
  });

  it("fileInDist keeps every path inside the folder", () => {
    expect(fileInDist("/srv/dist", "/assets/x.js")).toBe(path.resolve("/srv/dist/assets/x.js"));
    for (const bad of ["/../x", "/assets/..%2f..%2fx", "/a%00b", "/a%5cb", "/%E0%A4%A", "/..", "/"]) {
      const file = fileInDist("/srv/dist", bad);
      expect(file === undefined || file.startsWith(path.resolve("/srv/dist") + path.sep), bad).toBe(true);
    }
    expect(fileInDist("/srv/dist", "/assets/..%2f..%2fx")).toBeUndefined();
  });
});

describe("the web app's files, compressed", () => {
  const fetchWith = (url: string, acceptEncoding?: string) =>
    t.app.request(url, acceptEncoding === undefined ? {} : { headers: { "accept-encoding": acceptEncoding } });
  const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());

  it("a browser that takes br gets the build's brotli copy, of the original's type, cached as before", async () => {
    const response = await fetchWith("/assets/big.js", "gzip, deflate, br, zstd");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-encoding")).toBe("br");
    expect(response.headers.get("vary")).toBe("Accept-Encoding");
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const body = await bytesOf(response);
    expect(body.length).toBeLessThan(BIG_SCRIPT.length / 4);
    expect(brotliDecompressSync(body).toString()).toBe(BIG_SCRIPT);
  });

  it("one that takes gzip only gets the gzip copy", async () => {
    for (const header of ["gzip", "gzip, deflate", "br;q=0, gzip", "gzip;q=1, br;q=0.5"]) {
      const response = await fetchWith("/assets/big.js", header);
      expect(response.headers.get("content-encoding"), header).toBe("gzip");
      expect(response.headers.get("vary"), header).toBe("Accept-Encoding");
      expect(gunzipSync(await bytesOf(response)).toString(), header).toBe(BIG_SCRIPT);
    }
  });

  it("one that takes neither gets the file itself, and is told the answer varies", async () => {
    for (const header of [undefined, "", "identity", "deflate", "br;q=0, gzip;q=0", "*;q=0"]) {
      const response = await fetchWith("/assets/big.js", header);
      expect(response.status, String(header)).toBe(200);
      expect(response.headers.get("content-encoding"), String(header)).toBeNull();
      expect(response.headers.get("vary"), String(header)).toBe("Accept-Encoding");
      expect((await bytesOf(response)).toString(), String(header)).toBe(BIG_SCRIPT);
    }
  });

  it("a file the build did not compress (too small) is itself, whatever the client takes", async () => {
    const response = await fetchWith("/assets/x.js", "br, gzip");
    expect(response.headers.get("content-encoding")).toBeNull();
    expect(await response.text()).toBe(SCRIPT);
  });

  it("a file at the top of the build is compressed too, with its own cache time", async () => {
    const response = await fetchWith("/icon.svg", "br");
    expect(response.headers.get("content-encoding")).toBe("br");
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(brotliDecompressSync(await bytesOf(response)).toString()).toBe(ICON);
  });

  it("the compressed copies keep the folder's path rules", async () => {
    for (const url of ["/assets/..%2f..%2fsecret.txt", "/assets/%2e%2e/%2e%2e/secret.txt"]) {
      const response = await page(t.app, url);
      expect(await response.text(), url).not.toContain("not for the web");
    }
    expect((await fetchWith("/assets/missing.js", "br")).status).toBe(404);
  });

  it("reads Accept-Encoding's weights: q=0 refuses, * stands for the codings it does not name", () => {
    expect([...acceptedEncodings("gzip, deflate, br")]).toEqual([
      ["br", 1],
      ["gzip", 1],
    ]);
    expect([...acceptedEncodings("br;q=0.2, gzip;q=0.8")]).toEqual([
      ["br", 0.2],
      ["gzip", 0.8],
    ]);
    expect([...acceptedEncodings("*")].map(([name]) => name)).toEqual(["br", "gzip"]);
    expect([...acceptedEncodings("gzip, *;q=0")].map(([name]) => name)).toEqual(["gzip"]);
    expect([...acceptedEncodings("BR; Q=0")]).toEqual([]);
    expect([...acceptedEncodings(undefined)]).toEqual([]);
    expect([...acceptedEncodings("br;q=nonsense")]).toEqual([]);
  });
});

describe("without a build", () => {
  it("/ answers a short page saying how to build the web app, not an error", async () => {
    const response = await page(unbuilt.app, "/");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    const body = await response.text();
    expect(body).toContain("pnpm --filter @agent-marketplace/web build");
    expect(body).not.toContain("<script");
    expect((await page(unbuilt.app, "/marketplace")).status).toBe(200);
    expect((await unbuilt.app.request("/assets/x.js")).status).toBe(404);
  });
});
