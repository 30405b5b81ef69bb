import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_ARBITER_PRIVATE_KEY, LOCAL_RELAYER_PRIVATE_KEY } from "../src/config.ts";

/*
 * The API process (src/main.ts) refuses to start with one of the Hardhat node's public dev keys as
 * a service key anywhere but the local chain, and refuses a node of another chain than CHAIN_ID
 * (which would make a real chain look local): a message naming the variable, and exit code 1. A
 * stand-in node answers eth_chainId as Base (8453); no database is reached.
 */

const apiDir = fileURLToPath(new URL("..", import.meta.url));
const BASE_CHAIN_ID = 8453;

let base: { server: Server; url: string; calls: string[] };
beforeAll(async () => {
  const calls: string[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      calls.push(method);
      const answer =
        method === "eth_chainId"
          ? { jsonrpc: "2.0", id, result: `0x${BASE_CHAIN_ID.toString(16)}` }
          : { jsonrpc: "2.0", id, error: { code: -32601, message: `not here: ${method}` } };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
});
afterAll(() => new Promise<void>((resolve) => base.server.close(() => resolve())));

/** Runs src/main.ts with `env` until it exits (or 30 s): its exit code and what it wrote to stderr. */
function runApi(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ["src/main.ts"], {
    cwd: apiDir,
    env: {
      PATH: process.env.PATH,
      // Nothing listens there: the process must stop before it needs a database.
      DATABASE_URL: "postgresql://127.0.0.1:9/none",
      MASTER_KEY: randomBytes(32).toString("hex"),
      RPC_URL: base.url,
      PORT: "0",
      LOG_LEVEL: "silent",
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  return new Promise((resolve) => {
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("the API process off the local chain", () => {
  it("will not start with the relayer's key a dev account's, naming the variable", async () => {
    base.calls.length = 0;
    const { code, stderr } = await runApi({
      CHAIN_ID: String(BASE_CHAIN_ID),
      RELAYER_PRIVATE_KEY: LOCAL_RELAYER_PRIVATE_KEY,
    });
    expect(code, stderr).toBe(1);
    expect(stderr).toMatch(
      /RELAYER_PRIVATE_KEY is the key of the Hardhat node's dev account #2 .*on chain 8453 anyone could sign with it/,
    );
    expect(base.calls, "refused before asking the chain anything").toEqual([]);
  });

  it("will not start with the arbiter's key a dev account's, also as a cluster's primary", async () => {
    for (const processes of ["1", "2"]) {
      const { code, stderr } = await runApi({
        CHAIN_ID: String(BASE_CHAIN_ID),
        RELAYER_PRIVATE_KEY: generatePrivateKey(),
        ARBITER_API_KEY: "a".repeat(64),
        ARBITER_PRIVATE_KEY: LOCAL_ARBITER_PRIVATE_KEY,
        API_PROCESSES: processes,
      });
      expect(code, `API_PROCESSES=${processes}: ${stderr}`).toBe(1);
      expect(stderr).toMatch(/ARBITER_PRIVATE_KEY is the key of the Hardhat node's dev account #1 /);
    }
  });

  it("will not serve a node of another chain as the local chain (CHAIN_ID left at 31337)", async () => {
    const { code, stderr } = await runApi({});
    expect(code, stderr).toBe(1);
    expect(stderr).toMatch(/CHAIN_ID is 31337, but the node at RPC_URL is on chain 8453/);
  });
});
