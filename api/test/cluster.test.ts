import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import { freePort } from "@agent-marketplace/indexer/local-postgres";
import { afterEach, describe, expect, inject, it } from "vitest";
import { childrenOf } from "./child-processes.ts";

/*
 * `node src/main.ts` with API_PROCESSES=2 on the suite's stack: one port, two processes that
 * answer in turn (X-Api-Instance), ready only once both listen; SIGTERM stops both and exits 0; a
 * worker's death stops the other and exits 1.
 */

const stack = inject("stack");
const apiDir = fileURLToPath(new URL("..", import.meta.url));

interface Primary {
  child: ChildProcess;
  port: number;
  output(): string;
  exited: Promise<number | null>;
}

let running: Primary | undefined;
afterEach(() => {
  if (running?.child.exitCode === null) {
    for (const pid of childrenOf(running.child.pid as number)) process.kill(pid, "SIGKILL");
    running.child.kill("SIGKILL");
  }
  running = undefined;
});

function startPrimary(env: Record<string, string>): Primary {
  const port = Number(env.PORT);
  const child = spawn(process.execPath, ["src/main.ts"], {
    cwd: apiDir,
    env: {
      ...process.env,
      DATABASE_URL: stack.databaseUrl,
      RPC_URL: stack.rpcUrl,
      CHAIN_ID: String(stack.deployment.chainId),
      DEPLOYMENTS_DIR: stack.deploymentsDir,
      MASTER_KEY: randomBytes(32).toString("hex"),
      LOG_LEVEL: "info",
      KEEPER_INTERVAL_MS: "0",
      NOTIFY_INTERVAL_MS: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  running = { child, port, output: () => output, exited };
  return running;
}

/** Until the primary logs that its processes listen; rejects if it exits first. */
async function listening(primary: Primary): Promise<void> {
  let exit: number | null | undefined;
  void primary.exited.then((code) => {
    exit = code;
  });
  const until = Date.now() + 60_000;
  const ready = (line: string) => line.includes('"service":"api-cluster"') && line.includes('"msg":"API listening"');
  while (!primary.output().split("\n").some(ready)) {
    if (exit !== undefined) throw new Error(`the primary exited (${exit}):\n${primary.output()}`);
    if (Date.now() > until) throw new Error(`not listening within 60 s:\n${primary.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** GET /api/health over `agent`'s connection: which process answered. */
function instanceOver(agent: Agent, port: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    request({ host: "127.0.0.1", port, path: "/api/health", agent }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.headers["x-api-instance"] as string | undefined));
    })
      .on("error", reject)
      .end();
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("API_PROCESSES=2", () => {
  it("serves one port from two processes in turn, ready once both listen; SIGTERM stops both and exits 0", async () => {
    const primary = startPrimary({ API_PROCESSES: "2", PORT: String(await freePort()) });
    await listening(primary);
    const workers = childrenOf(primary.child.pid as number);
    expect(workers).toHaveLength(2);
    // Each keep-alive connection stays with the process it was handed to; the next goes to the other.
    const agents = [new Agent({ keepAlive: true, maxSockets: 1 }), new Agent({ keepAlive: true, maxSockets: 1 })];
    const first = await Promise.all(agents.map((agent) => instanceOver(agent, primary.port)));
    expect([...first].sort()).toEqual(["1", "2"]);
    for (const [i, agent] of agents.entries()) {
      for (let n = 0; n < 3; n++) expect(await instanceOver(agent, primary.port), `connection ${i}`).toBe(first[i]);
    }
    for (const agent of agents) agent.destroy();

    primary.child.kill("SIGTERM");
    expect(await primary.exited).toBe(0);
    expect(workers.filter(alive)).toEqual([]);
  });

  it("a process that dies stops the other, and the primary exits 1 naming it", async () => {
    const primary = startPrimary({ API_PROCESSES: "2", PORT: String(await freePort()) });
    await listening(primary);
    const workers = childrenOf(primary.child.pid as number);
    expect(workers).toHaveLength(2);
    process.kill(workers[0] as number, "SIGKILL");
    expect(await primary.exited).toBe(1);
    expect(primary.output()).toMatch(/API process [12] exited/);
    expect(workers.filter(alive)).toEqual([]);
  });
});
