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

  it("documents every route with its responses, and the API key scheme", async () => {
    const document = await json(await get(t.app, "/api/openapi.json"));
    expect(document.components.securitySchemes.ApiKey).toMatchObject({ type: "http", scheme: "bearer" });
    for (const [path, item] of Object.entries(
      document.paths as Record<string, Record<string, { responses: object }>>,
    )) {
      for (const [method, operation] of Object.entries(item)) {
        expect(Object.keys(operation.responses), `${method} ${path}`).not.toHaveLength(0);
      }
    }
  });
});

describe("GET /docs", () => {
  it("renders every documented operation as HTML, without scripts", async () => {
    const response = await get(t.app, "/docs");
    expect(response.headers.get("content-type")).toMatch(/text\/html/);
    const page = await response.text();
    const document = await json(await get(t.app, "/api/openapi.json"));
    for (const path of Object.keys(document.paths)) expect(page).toContain(path);
    expect(page).not.toContain("<script");
  });
});
