import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, json, type TestApp, testApp } from "../../../test/harness.ts";

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

describe("GET /api/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const document = await json(await get(t.app, "/api/openapi.json"));
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe("3.1.0");
  });

  it("documents every route with its responses, the API key scheme and the session cookie", async () => {
    const document = await json(await get(t.app, "/api/openapi.json"));
    expect(document.components.securitySchemes.ApiKey).toMatchObject({ type: "http", scheme: "bearer" });
    // A browser's session: the cookie, and the CSRF header its writes carry.
    expect(document.components.securitySchemes.SessionCookie).toMatchObject({
      type: "apiKey",
      in: "cookie",
      name: "am_session",
      description: expect.stringContaining("X-CSRF-Token"),
    });
    for (const [path, item] of Object.entries(
      document.paths as Record<string, Record<string, { responses: object }>>,
    )) {
      for (const [method, operation] of Object.entries(item)) {
        expect(Object.keys(operation.responses), `${method} ${path}`).not.toHaveLength(0);
      }
    }
  });
  it("names every operation with a unique camelCase operationId (the SDK's function names)", async () => {
    const document = await json(await get(t.app, "/api/openapi.json"));
    const ids: string[] = [];
    for (const [path, item] of Object.entries(
      document.paths as Record<string, Record<string, { operationId?: string }>>,
    )) {
      for (const [method, operation] of Object.entries(item)) {
        expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z0-9]+$/);
        ids.push(operation.operationId as string);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("GET /docs", () => {
  it("is Scalar's reference of /api/openapi.json, its script served from here: no CDN", async () => {
    const response = await get(t.app, "/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/text\/html/);
    const page = await response.text();
    expect(page).toContain('<script src="/docs/scalar.js"');
    expect(page).toContain("/api/openapi.json");
    expect(page).not.toMatch(/https?:\/\//);
    // Scalar starts with one inline script: the page's policy lets exactly it run, by its nonce.
    const policy = response.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toBeDefined();
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain("unsafe-inline' 'nonce");
    const scripts = [...page.matchAll(/<script([^>]*)>/g)].map(([, attributes]) => attributes);
    expect(scripts.length).toBeGreaterThan(0);
    for (const attributes of scripts) expect(attributes).toContain(`nonce="${nonce}"`);
    const again = (await get(t.app, "/docs")).headers.get("content-security-policy");
    expect(again, "a fresh nonce per page").not.toBe(policy);
  });

  it("serves Scalar's browser bundle as JavaScript, gzipped when asked", async () => {
    const plain = await get(t.app, "/docs/scalar.js");
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toMatch(/^text\/javascript/);
    const script = await plain.text();
    expect(script.length).toBeGreaterThan(100_000);
    expect(script).toContain("createApiReference");
    const zipped = await t.app.request("/docs/scalar.js", { headers: { "accept-encoding": "gzip, br" } });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    const bytes = new Uint8Array(await zipped.arrayBuffer());
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
  });
});
