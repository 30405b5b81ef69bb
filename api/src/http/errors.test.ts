import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../db/client.ts";
import type { AppEnv } from "./env.ts";
import { errorResponse } from "./errors.ts";

/*
 * A database pool with no connection to give: the request answers 503 `busy` with Retry-After
 * within the pool's timeout, instead of waiting forever or answering 500. Real Postgres.
 */
const db = createDatabase(inject("stack").databaseUrl, { max: 1, connectionTimeoutMs: 200 });
afterAll(() => db.$client.end());

/** The pool's one connection, checked out; opening it may itself outlast 200 ms on a busy machine. */
async function holdTheOnlyConnection() {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.$client.connect();
    } catch (error) {
      if (attempt === 20) throw error;
    }
  }
}

describe("errorResponse", () => {
  it("answers 503 busy when the pool has no connection in time", async () => {
    const app = new Hono<AppEnv>();
    app.use(requestId());
    app.onError(errorResponse);
    app.get("/read", async (c) => c.json((await db.$client.query("SELECT 1 AS one")).rows[0]));

    const held = await holdTheOnlyConnection();
    try {
      const response = await app.request("/read");
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("1");
      expect(await response.json()).toMatchObject({ code: "busy" });
    } finally {
      held.release();
    }
    const after = await app.request("/read");
    expect(await after.json()).toEqual({ one: 1 });
  });
});
