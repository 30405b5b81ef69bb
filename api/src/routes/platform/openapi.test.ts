import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, json, type TestApp, testApp } from "../../../test/harness.ts";
import { ERROR_CODES } from "../../http/error-codes.ts";

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

interface Response {
  headers?: Record<string, { $ref?: string }>;
  content?: Record<string, { schema?: unknown; example?: unknown; examples?: unknown }>;
}
interface Operation {
  operationId: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { in: string; name: string }[];
  requestBody?: { content: Record<string, { example?: unknown; examples?: unknown }> };
  responses: Record<string, Response>;
}

/** Every operation of the document, as "METHOD /path" and the operation. */
async function operations(): Promise<[string, Operation][]> {
  const document = await json(await get(t.app, "/api/openapi.json"));
  return Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item).map(
      ([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as [string, Operation],
    ),
  );
}

describe("the OpenAPI document, for generators", () => {
  it("passes Redocly's recommended rules with no error, its examples fitting their schemas", async () => {
    const source = await (await get(t.app, "/api/openapi.json")).text();
    const problems = await lintFromString({
      source,
      absoluteRef: "openapi.json",
      config: await createConfig({ extends: ["recommended"] }),
    });
    const described = (severity: string, rules?: string[]) =>
      problems
        .filter((problem) => problem.severity === severity && (!rules || rules.includes(problem.ruleId)))
        .map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? "?"}`);
    expect(described("error")).toEqual([]);
    // Warnings are allowed, but an example that does not fit its schema misleads every generator.
    expect(described("warn", ["no-invalid-media-type-examples", "no-invalid-schema-examples"])).toEqual([]);
  });

  it("names its server and declares every tag its operations use, each described", async () => {
    const document = await json(await get(t.app, "/api/openapi.json"));
    // The tests' config has no PUBLIC_BASE_URL: the origin the document was read from.
    expect(document.servers).toEqual([{ url: "/", description: expect.any(String) }]);
    const declared = (document.tags as { name: string; description?: string }[]).map((tag) => {
      expect(tag.description, tag.name).toMatch(/\S/);
      return tag.name;
    });
    const used = new Set((await operations()).flatMap(([, operation]) => operation.tags ?? []));
    expect([...declared].sort()).toEqual([...used].sort());
  });

  it("answers 429 everywhere (every /api request spends a budget), and 401 wherever a credential is required", async () => {
    for (const [route, operation] of await operations()) {
      expect(Object.keys(operation.responses), route).toContain("429");
      if ((operation.security?.length ?? 0) > 0) expect(Object.keys(operation.responses), route).toContain("401");
    }
  });

  it("declares the headers the app sends: X-Request-Id, RateLimit-*, Retry-After, Idempotency-Key", async () => {
    const document = await json(await get(t.app, "/api/openapi.json"));
    expect(Object.keys(document.components.headers).sort()).toEqual(
      [
        "Idempotent-Replayed",
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
        "Retry-After",
        "X-Request-Id",
      ].sort(),
    );
    let idempotent = 0;
    for (const [route, operation] of await operations()) {
      const keyed = operation.parameters?.some((p) => p.in === "header" && p.name === "Idempotency-Key");
      if (keyed) idempotent++;
      for (const [status, response] of Object.entries(operation.responses)) {
        const at = `${route} ${status}`;
        const headers = response.headers ?? {};
        for (const name of ["X-Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]) {
          expect(headers[name], at).toEqual({ $ref: `#/components/headers/${name}` });
        }
        if (status === "429") expect(headers["Retry-After"], at).toBeDefined();
        if (keyed && status.startsWith("2")) expect(headers["Idempotent-Replayed"], at).toBeDefined();
      }
    }
    expect(idempotent).toBeGreaterThan(20);
  });

  it("shows an example of every request body and every 2xx answer of the money operations", async () => {
    const money = [
      "buyListing",
      "claimListing",
      "createTransaction",
      "confirmFunding",
      "deliverWork",
      "releaseEscrow",
      "refundEscrow",
      "openDispute",
      "resolveDispute",
      "withdrawUsdc",
      "requestTestUsdc",
      "acceptProposal",
    ];
    const byId = new Map((await operations()).map(([, operation]) => [operation.operationId, operation]));
    for (const id of money) {
      const operation = byId.get(id);
      expect(operation, id).toBeDefined();
      for (const [type, media] of Object.entries(operation?.requestBody?.content ?? {})) {
        expect(media.example ?? media.examples, `${id} request ${type}`).toBeDefined();
      }
      const answers = Object.entries(operation?.responses ?? {}).filter(([status]) => status.startsWith("2"));
      expect(answers.length, id).toBeGreaterThan(0);
      for (const [status, response] of answers) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          expect(media.example ?? media.examples, `${id} ${status} ${type}`).toBeDefined();
        }
      }
    }
  });

  it("marks the live service's paths as aliases of ours (x-alias-of), each saying so", async () => {
    const all = await operations();
    const ids = new Set(all.map(([, operation]) => operation.operationId));
    const aliases = all.filter(([, operation]) => "x-alias-of" in operation);
    expect(aliases.map(([route]) => route).sort()).toEqual(
      [
        "DELETE /api/agents/{id}/webhook",
        "GET /api/agents/search",
        "GET /api/transactions/{id}/evidence",
        "GET /api/transactions/{id}/review",
        "PATCH /api/agents/{id}",
        "PATCH /api/notifications",
        "POST /api/agents/{id}/webhook",
        "POST /api/messages",
      ].sort(),
    );
    for (const [route, operation] of aliases) {
      const of = (operation as { "x-alias-of"?: string })["x-alias-of"] as string;
      expect(ids.has(of), `${route} is an alias of ${of}`).toBe(true);
      const original = all.find(([, candidate]) => candidate.operationId === of)?.[1];
      expect(original && "x-alias-of" in original, `${of} is ours, not an alias`).toBe(false);
      const description = (operation as { description?: string }).description ?? "";
      expect(description.startsWith(`Alias of \`${of}\``), route).toBe(true);
      expect(description, route).toContain("for clients of the live service");
    }
  });

  it("closes the error body's code: the codes of http/error-codes.ts", async () => {
    const document = await json(await get(t.app, "/api/openapi.json"));
    expect(document.components.schemas.Error.properties.code.enum).toEqual(ERROR_CODES);
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

  it("leads back to the marketplace and to the guide, and starts with a guide to one deal", async () => {
    const page = await (await get(t.app, "/docs")).text();
    expect(page).toContain('<html lang="en">');
    expect(page).toMatch(/<a href="\/"[^>]*>← Back to the marketplace<\/a>/);
    expect(page).toMatch(/<a href="\/skill.md"[^>]*>/);
    const document = await json(await get(t.app, "/api/openapi.json"));
    const guide: string = document.info.description;
    expect(guide.startsWith("[← Back to the marketplace](/)")).toBe(true);
    for (const step of ["/api/agents/register", "Authorization: Bearer", "/buy", "/deliver", "/release", "/skill.md"]) {
      expect(guide, step).toContain(step);
    }
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
