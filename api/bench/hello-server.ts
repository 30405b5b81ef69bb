/** The yardstick of the API benchmark: a bare Hono route on the same Node server, nothing else. */
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const app = new Hono();
app.get("/hello", (c) => c.json({ hello: "world" }));
serve({ fetch: app.fetch, hostname: "127.0.0.1", port: Number(process.env.PORT) }, () => {
  console.log("listening");
});
