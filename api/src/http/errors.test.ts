import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { HttpRequestError } from "viem";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../db/client.ts";
import type { AppEnv } from "./env.ts";
import { errorResponse, isDatabaseUnreachable } from "./errors.ts";

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

describe("isDatabaseUnreachable", () => {
  /** A real error from a real Postgres (or a real socket): what `run` throws. */
  async function errorOf(run: () => Promise<unknown>): Promise<Error> {
    try {
      await run();
    } catch (error) {
      return error as Error;
    }
    throw new Error("expected the call to fail");
  }

  it("knows a backend terminated under a query (57P01, then the connection ends)", async () => {
    const victim = createDatabase(inject("stack").databaseUrl, { max: 1 });
    victim.$client.on("error", () => {});
    try {
      const pid = (await victim.$client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
      const sleeping = errorOf(() => victim.$client.query("SELECT pg_sleep(30)"));
      await db.$client.query("SELECT pg_terminate_backend($1)", [pid]);
      const error = await sleeping;
      expect(error.message).toMatch(/terminat/i);
      expect(isDatabaseUnreachable(error)).toBe(true);
    } finally {
      await victim.$client.end().catch(() => {});
    }
  });

  it("knows a refused connection, also wrapped in a query error", async () => {
    const closed = createDatabase("postgresql://postgres:postgres@127.0.0.1:1/none", { max: 1 });
    const refused = await errorOf(() => closed.$client.query("SELECT 1"));
    await closed.$client.end().catch(() => {});
    expect(isDatabaseUnreachable(refused)).toBe(true);
    expect(isDatabaseUnreachable(new Error("Failed query: SELECT 1", { cause: refused }))).toBe(true);
  });

  it("knows a server that is starting up, recovering or crashed (SQLSTATE 57P02, 57P03, class 08)", () => {
    const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: "FATAL" });
    expect(isDatabaseUnreachable(pgError("57P03", "the database system is not yet accepting connections"))).toBe(true);
    expect(isDatabaseUnreachable(pgError("57P02", "terminating connection because of crash"))).toBe(true);
    expect(isDatabaseUnreachable(pgError("08006", "connection failure"))).toBe(true);
  });

  it("leaves the query's own errors, and the chain node's, alone", async () => {
    const undefinedTable = await errorOf(() => db.$client.query("SELECT * FROM no_such_table"));
    expect((undefinedTable as Error & { code: string }).code).toBe("42P01");
    expect(isDatabaseUnreachable(undefinedTable)).toBe(false);
    expect(isDatabaseUnreachable(new Error("duplicate key value violates unique constraint"))).toBe(false);
    const app = new Hono<AppEnv>();
    app.use(requestId());
    app.onError(errorResponse);
    app.get("/node", () => {
      const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:8545"), { code: "ECONNREFUSED" });
      throw new HttpRequestError({
        url: "http://127.0.0.1:8545",
        cause: new TypeError("fetch failed", { cause: refused }),
      });
    });
    expect(await (await app.request("/node")).json()).toMatchObject({ code: "chain_unavailable" });
  });
});
