/**
 * `pnpm start` as a developer runs it: the whole stack comes up, agents register over real HTTP,
 * Ctrl-C stops everything with exit code 0, and a second start on the same data folder finds the
 * agents again (hosted wallets included). Every port and the data folder are the test's own.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { isListening } from "@agent-marketplace/indexer/local-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventually,
  json,
  killStack,
  newStackEnv,
  processesWith,
  type StackEnv,
  type StackProcess,
  startStackProcess,
} from "./stack-process.ts";

interface Registered {
  id: string;
  key: string;
  wallet: string;
}

describe("pnpm start", () => {
  let dir: string;
  let env: StackEnv;
  const started: StackProcess[] = [];
  let stack: StackProcess;
  let external: Registered;
  let hosted: Registered;
  let masterKey: string;
  let listingIds: string[] = [];

  const start = (extra: Record<string, string> = {}) => {
    const launched = startStackProcess({ ...env, ...extra });
    started.push(launched);
    return launched;
  };
  const get = (route: string, key?: string) =>
    fetch(`${stack.apiUrl}${route}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  const register = async (body: Record<string, unknown>): Promise<Registered> => {
    const response = await fetch(`${stack.apiUrl}/api/agents/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    const { agent, api_key } = await json(response);
    return { id: agent.id, key: api_key, wallet: agent.wallet_address };
  };
  /** Sends Ctrl-C's signal and expects a clean stop that frees every port and keeps the data. */
  const stop = async () => {
    process.kill(stack.child.pid as number, "SIGINT");
    const { code } = await stack.exited;
    expect(code, stack.output()).toBe(0);
    for (const port of [env.API_PORT, env.INDEXER_PORT, env.HARDHAT_PORT, env.PG_PORT]) {
      expect(await isListening(Number(port)), `port ${port} is still in use`).toBe(false);
    }
    expect(existsSync(path.join(env.DATA_DIR, "postgres", "PG_VERSION"))).toBe(true);
    expect(existsSync(path.join(env.DATA_DIR, "stack.pid"))).toBe(false);
  };

  beforeAll(async () => {
    ({ dir, env } = await newStackEnv("e2e-start-"));
  });

  afterAll(async () => {
    for (const launched of started) await killStack(launched, env.DATA_DIR);
    if (!process.env.KEEP_TEST_DATA) rmSync(dir, { recursive: true, force: true });
  });

  it("brings up Postgres, chain, indexer and API and prints where they are", async () => {
    stack = start();
    await stack.healthy();
    const health = await json(await get("/api/health"));
    expect(health).toMatchObject({ status: "ok", database: { ok: true }, chain: { ok: true, chain_id: 31337 } });
    expect(health.indexer.ok).toBe(true);
    const printed = stack.output();
    for (const url of [
      stack.apiUrl,
      `${stack.apiUrl}/docs`,
      `${stack.apiUrl}/api/openapi.json`,
      `http://127.0.0.1:${env.INDEXER_PORT}/status`,
      `http://127.0.0.1:${env.HARDHAT_PORT}`,
      `127.0.0.1:${env.PG_PORT}/marketplace`,
    ]) {
      expect(printed).toContain(url);
    }
    expect(printed).toContain("Press Ctrl-C");
    expect((await get("/api/openapi.json")).status).toBe(200);
    expect((await get("/docs")).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${env.INDEXER_PORT}/ready`)).status).toBe(200);
    // The master key was created once, readable by its owner only.
    const keyFile = path.join(env.DATA_DIR, "master.key");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    masterKey = readFileSync(keyFile, "utf8");
    expect(masterKey.trim()).toMatch(/^[0-9a-f]{64}$/);
  });

  it("registers an external and a hosted agent over HTTP", async () => {
    const wallet = `0x${randomBytes(20).toString("hex")}`;
    external = await register({ agent_name: "e2e external", wallet_address: wallet });
    expect(external.wallet.toLowerCase()).toBe(wallet);
    hosted = await register({ agent_name: "e2e hosted", hosted: true });
    expect(hosted.wallet).toMatch(/^0x[0-9a-fA-F]{40}$/);

    for (const agent of [external, hosted]) {
      const response = await get("/api/agents/me", agent.key);
      expect(response.status).toBe(200);
      const me = await json(response);
      expect(me).toMatchObject({ id: agent.id, wallet_address: agent.wallet, hosted: agent === hosted });
    }
    const directory = await json(await get("/api/agents"));
    const ids = directory.agents.map((agent: { id: string }) => agent.id);
    expect(ids).toEqual(expect.arrayContaining([external.id, hosted.id]));
  });

  it("creates and browses listings over HTTP", async () => {
    const create = async (agent: Registered, fields: Record<string, unknown>) => {
      const response = await fetch(`${stack.apiUrl}/api/listings`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${agent.key}` },
        body: JSON.stringify({ agent_id: agent.id, description: "end to end", ...fields }),
      });
      expect(response.status).toBe(201);
      return (await json(response)).id as string;
    };
    listingIds = [
      await create(external, { title: "Audit a zebrafish contract", price_wei: "2500000", category: "coding" }),
      await create(hosted, { title: "Summarise zebrafish papers", price_wei: "900000", category: "research" }),
    ];
    const browse = await json(await get("/api/listings?keyword=zebrafish&sort=cheapest"));
    expect(browse.listings.map((listing: { id: string }) => listing.id)).toEqual([listingIds[1], listingIds[0]]);
    expect(browse.listings[0]).toMatchObject({ price_usdc: "0.90", agent: { id: hosted.id } });
    const starter = await json(await get("/api/listings?keyword=zebrafish&starter=true"));
    expect(starter.listings.map((listing: { id: string }) => listing.id)).toEqual([listingIds[1]]);
  });

  it("refuses a second start while one runs, without disturbing it", async () => {
    const second = start();
    const { code } = await second.exited;
    expect(code).toBe(1);
    expect(second.output()).toMatch(/not free|already running|in use/);
    expect((await get("/api/health")).status).toBe(200);
    expect(readFileSync(path.join(env.DATA_DIR, "master.key"), "utf8")).toBe(masterKey);
  });

  it("refuses a bad setting before it starts anything, naming it", async () => {
    for (const [name, value, message] of [
      ["RESTARTS_PER_MINUTE", "-1", "RESTARTS_PER_MINUTE=-1 is not a whole number of 0 or more"],
      ["RESTARTS_PER_MINUTE", "two", "RESTARTS_PER_MINUTE=two is not a whole number of 0 or more"],
      ["API_PORT", "70000", "API_PORT=70000 is not a port"],
    ] as const) {
      const refused = start({ [name]: value });
      const { code } = await refused.exited;
      expect(code, refused.output()).toBe(1);
      expect(refused.output()).toContain(message);
    }
    expect((await get("/api/health")).status).toBe(200);
  });

  it("stops everything on Ctrl-C with exit code 0", async () => {
    await stop();
    expect(stack.output()).toContain("Stopped.");
  });

  it("starts again on the same data: agents, keys and hosted wallets are still there", async () => {
    const firstRun = stack.output();
    try {
      stack = start();
      await stack.healthy();
      // A fresh chain, a fresh indexer schema; the one of the first run is gone at once.
      expect(stack.output(), `first run:\n${firstRun}\nsecond run:\n${stack.output()}`).toContain(
        "Dropped the schemas of earlier local chains",
      );
      for (const agent of [external, hosted]) {
        const view = await get(`/api/agents/${agent.id}`);
        expect(view.status).toBe(200);
        expect(await json(view)).toMatchObject({ id: agent.id, wallet_address: agent.wallet });
        const me = await get("/api/agents/me", agent.key);
        expect(me.status).toBe(200);
        expect(await json(me)).toMatchObject({ id: agent.id, wallet_address: agent.wallet, hosted: agent === hosted });
      }
      expect(readFileSync(path.join(env.DATA_DIR, "master.key"), "utf8")).toBe(masterKey);
      const directory = await json(await get("/api/agents"));
      expect(directory.agents.map((agent: { id: string }) => agent.id)).toEqual(
        expect.arrayContaining([external.id, hosted.id]),
      );
      const browse = await json(await get("/api/listings?keyword=zebrafish"));
      expect(browse.listings.map((listing: { id: string }) => listing.id).sort()).toEqual([...listingIds].sort());
      await stop();
    } finally {
      // A failed check must not leave this stack holding the ports of the next test.
      await killStack(stack, env.DATA_DIR);
    }
  });

  it.runIf(existsSync("/proc/self/cmdline"))(
    "starts a dead indexer again, RESTARTS_PER_MINUTE times a minute; one death more stops the stack with exit 1",
    async () => {
      stack = start({ RESTARTS_PER_MINUTE: "1" });
      try {
        await stack.healthy();
        const first = processesWith(["ponder", "--port", env.INDEXER_PORT]);
        expect(first).toHaveLength(1);
        process.kill(first[0] as number, "SIGKILL");
        // Back: announced, a new process, and the API's health sees it answer.
        const second = await eventually(async () => {
          expect(stack.output()).toContain("The indexer is running again.");
          expect((await get("/api/health")).status).toBe(200);
          const [found] = processesWith(["ponder", "--port", env.INDEXER_PORT]);
          expect(found).toBeDefined();
          expect(found).not.toBe(first[0]);
          return found as number;
        }, 60_000);
        process.kill(second, "SIGKILL");
        const { code } = await stack.exited;
        expect(code, stack.output()).toBe(1);
        expect(stack.output()).toMatch(
          /The indexer exited unexpectedly 2 times in a minute \(SIGKILL\); see .*indexer\.log/,
        );
        for (const port of [env.API_PORT, env.INDEXER_PORT, env.HARDHAT_PORT, env.PG_PORT]) {
          expect(await isListening(Number(port)), `port ${port} is still in use`).toBe(false);
        }
      } finally {
        await killStack(stack, env.DATA_DIR);
      }
    },
  );

  it.runIf(existsSync("/proc/self/cmdline"))(
    "stops the rest and exits 1, naming the log, when a part dies",
    async () => {
      stack = start();
      await stack.healthy();
      const node = processesWith(["hardhat", "--port", env.HARDHAT_PORT]);
      expect(node).toHaveLength(1);
      process.kill(node[0] as number, "SIGKILL");
      const { code } = await stack.exited;
      expect(code).toBe(1);
      expect(stack.output()).toMatch(/Hardhat node exited unexpectedly.*hardhat-node\.log/);
      for (const port of [env.API_PORT, env.INDEXER_PORT, env.PG_PORT]) {
        expect(await isListening(Number(port)), `port ${port} is still in use`).toBe(false);
      }
      expect(existsSync(path.join(env.DATA_DIR, "stack.pid"))).toBe(false);
    },
  );
});
