/**
 * The yardsticks of the API benchmark, on the same Node server: a bare Hono route, and (with
 * DATABASE_URL) one that makes a single trivial round trip to Postgres, the cost no read of the
 * API can go below.
 */
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import pg from "pg";

const app = new Hono();
app.get("/hello", (c) => c.json({ hello: "world" }));
const databaseUrl = process.env.DATABASE_URL;
if (databaseUrl) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });
  app.get("/hello/db", async (c) => {
    const { rows } = await pool.query({ name: "hello", text: "SELECT $1::int AS hello", values: [1] });
    return c.json(rows[0]);
  });
}
serve({ fetch: app.fetch, hostname: "127.0.0.1", port: Number(process.env.PORT) }, () => {
  console.log("listening");
});
