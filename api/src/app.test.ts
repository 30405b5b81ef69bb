import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, registerAgent, type TestApp, testApp } from "../test/harness.ts";

/** The app with a logger whose lines this file reads. */
let t: TestApp;
const lines: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  t = await testApp({}, { logger: pino({ level: "info" }, sink) });
});
afterAll(() => t.close());

/** The request lines logged for `path`. */
const requestLines = (path: string) => lines.filter((line) => line.msg === "request" && line.path === path);

describe("the request log", () => {
  it("has a line per request with its id and status; a keyed request's names the agent, another's does not", async () => {
    const agent = await registerAgent(t.app, "Logged");
    const own = await get(t.app, "/api/agents/me", agent.key);
    expect(own.status).toBe(200);
    const profile = await get(t.app, `/api/agents/${agent.id}`);
    expect(profile.status).toBe(200);
    const refused = await get(t.app, "/api/agents/me", "f".repeat(64));
    expect(refused.status).toBe(401);

    const [ownLine, refusedLine] = requestLines("/api/agents/me");
    expect(ownLine).toMatchObject({
      request_id: own.headers.get("x-request-id"),
      agent_id: agent.id,
      method: "GET",
      status: 200,
    });
    expect(refusedLine).toMatchObject({ request_id: refused.headers.get("x-request-id"), status: 401 });
    expect(refusedLine).not.toHaveProperty("agent_id");
    const [profileLine] = requestLines(`/api/agents/${agent.id}`);
    expect(profileLine).toMatchObject({ request_id: profile.headers.get("x-request-id"), status: 200 });
    expect(profileLine).not.toHaveProperty("agent_id");
  });
});
