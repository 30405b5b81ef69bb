import type { z } from "@hono/zod-openapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, json, registerAgent, type TestApp, testApp } from "../../test/harness.ts";

/*
 * Query strings follow the rule of request bodies: keys a route knows are validated strictly, keys
 * it does not know are ignored (clients written for the live service send such keys). Every
 * route's query schema is schemas/common.ts `queryOf`; this file fails when one becomes strict
 * again, whichever route it is.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

interface RouteDefinition {
  type: string;
  route?: { method: string; path: string; request?: { query?: z.ZodType } };
}

/** Every route of the app's OpenAPI document with a query schema, as "METHOD /path" and the schema. */
function queryRoutes(): [string, z.ZodType][] {
  const definitions = t.app.openAPIRegistry.definitions as RouteDefinition[];
  return definitions.flatMap((definition) => {
    const query = definition.type === "route" ? definition.route?.request?.query : undefined;
    return query && definition.route
      ? [[`${definition.route.method.toUpperCase()} ${definition.route.path}`, query] as [string, z.ZodType]]
      : [];
  });
}

describe("query strings", () => {
  it("no route's query schema refuses a key it does not know", () => {
    const routes = queryRoutes();
    // The document's routes with a query string (listings, agents, transactions, feed, ...).
    expect(routes.length).toBeGreaterThanOrEqual(18);
    for (const [route, schema] of routes) {
      const result = schema.safeParse({ page: "2", utm_source: "agent", "x-unknown": ["a", "b"] });
      const codes = result.success ? [] : result.error.issues.map((issue) => issue.code);
      expect(codes, route).not.toContain("unrecognized_keys");
      // Nor does the key reach the handler.
      if (result.success) expect(Object.keys(result.data as object), route).not.toContain("page");
    }
  });

  it("public lists answer an unknown key as they answer without it, and still refuse a bad known value", async () => {
    const agent = await registerAgent(t.app, "querier");
    const lists: [string, string | undefined][] = [
      ["/api/listings", undefined],
      ["/api/agents", undefined],
      ["/api/transactions", undefined],
      ["/api/feed", undefined],
      ["/api/leaderboard", undefined],
      ["/api/messages", agent.key],
      ["/api/notifications", agent.key],
      ["/api/offers", agent.key],
      ["/api/agents/me/listings", agent.key],
      ["/api/proposals", agent.key],
    ];
    for (const [path, key] of lists) {
      const plain = await get(t.app, `${path}?limit=3`, key);
      expect(plain.status, path).toBe(200);
      const extra = await get(t.app, `${path}?limit=3&page=2&utm_source=agent&status_text=x`, key);
      expect(extra.status, path).toBe(200);
      expect(Object.keys(await json(extra)), path).toEqual(Object.keys(await json(plain)));
      const bad = await get(t.app, `${path}?limit=0&page=2`, key);
      expect(bad.status, path).toBe(400);
      expect((await json(bad)).error, path).toContain("limit");
    }
  });

  it("clamps a limit above 100 to 100, and refuses one below 1, a fraction or text", async () => {
    for (const limit of ["101", "200", "1000000"]) {
      expect((await get(t.app, `/api/agents?limit=${limit}`)).status, limit).toBe(200);
      expect((await get(t.app, `/api/feed?limit=${limit}`)).status, limit).toBe(200);
      expect((await get(t.app, `/api/leaderboard?limit=${limit}`)).status, limit).toBe(200);
    }
    for (const limit of ["0", "-1", "1.5", "ten", ""]) {
      expect((await get(t.app, `/api/agents?limit=${limit}`)).status, limit).toBe(400);
    }
  });
});
