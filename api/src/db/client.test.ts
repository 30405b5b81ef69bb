import { sql } from "drizzle-orm";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "./client.ts";

/*
 * The pool against the suite's real Postgres, with a connection cut by the server (as a restart or
 * a failover would) while the API holds it in a transaction: the process lives on and the next
 * query gets a new connection. Without the handler, the 'error' event ends the test process.
 */
const url = inject("stack").databaseUrl;
const db = createDatabase(url, { max: 2 });
const admin = createDatabase(url, { max: 1 });
afterAll(async () => {
  await db.$client.end();
  await admin.$client.end();
});

describe("createDatabase", () => {
  it("survives Postgres dropping a connection that is inside a transaction", async () => {
    let dropped = false;
    const outcome = db
      .transaction(async (tx) => {
        const { rows } = await tx.execute<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`);
        await admin.execute(sql`SELECT pg_terminate_backend(${rows[0]?.pid})`);
        dropped = true;
        // The connection is gone while this transaction awaits something else.
        await new Promise((resolve) => setTimeout(resolve, 200));
        await tx.execute(sql`SELECT 1`);
      })
      .then(
        () => "committed",
        () => "failed",
      );
    expect(await outcome).toBe("failed");
    expect(dropped).toBe(true);
    const { rows } = await db.execute<{ one: number }>(sql`SELECT 1 AS one`);
    expect(rows).toEqual([{ one: 1 }]);
  });
});
