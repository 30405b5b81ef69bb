/**
 * The two processes of `pnpm start`. Ctrl-C reaches every process of the terminal's foreground
 * group at once, so the parts would stop in no particular order (Postgres before the indexer has
 * released its lock). Hence: the process as started (the supervising process) only relays the
 * signals to a copy of itself started in a session of its own (the runner), which owns the parts
 * and stops them in order. The runner also stops everything if the supervising process disappears.
 *
 * The runner claims the ports and the data folder (its pid in `<DATA_DIR>/stack.pid`) before it
 * starts anything, so that a second `pnpm start` stops at once, and exits with the supervisor's code.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { apiNodeFlags } from "@agent-marketplace/api/node-flags";
import { readSettings, type Settings, shown } from "./settings.ts";
import { createSupervisor, type Part, StartError, startFailure } from "./supervisor.ts";

const RUNNER_FLAG = "AGENT_MARKETPLACE_STACK_RUNNER";
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** Whether this process is the runner (else it is the supervising process). */
export function isRunner(): boolean {
  return process.env[RUNNER_FLAG] === "1";
}

/**
 * Starts `script` again as the runner, in its own session, and relays Ctrl-C, SIGTERM and SIGHUP to
 * it. The runner hosts the one-process API (and the cluster's processes inherit its flags): it gets
 * the API's Node.js flags.
 */
export function superviseRunner(script: string): void {
  const runner = spawn(process.execPath, [...process.execArgv, ...apiNodeFlags(), script], {
    detached: true,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, [RUNNER_FLAG]: "1" },
  });
  const relay = () => {
    if (runner.exitCode === null && runner.signalCode === null) runner.kill("SIGTERM");
  };
  for (const signal of SIGNALS) process.on(signal, relay);
  // Whoever started us died without a signal (killed outright): stop the stack all the same.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) relay();
  }, 1000).unref();
  runner.on("exit", (code) => process.exit(code ?? 1));
}

/** What the runner runs: the parts in order, and what to print once they all run. */
export interface StackPlan {
  parts: readonly Part[];
  readyMessage: () => string;
}

/** The runner: reads the settings, claims ports and data folder, runs the parts, exits with their code. */
export async function runStack(plan: (settings: Settings) => StackPlan): Promise<never> {
  // A closed terminal or pipe must not crash the runner before it has stopped the parts.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
  let settings: Settings;
  try {
    settings = readSettings();
  } catch (error) {
    console.error(startFailure(error));
    process.exit(1);
  }
  const { parts, readyMessage } = plan(settings);
  const supervisor = createSupervisor(parts, {
    restartsPerMinute: settings.restartsPerMinute,
    show: shown,
    onReady: () => console.log(readyMessage()),
    stoppedMessage: `Stopped. Data kept in ${shown(settings.dataDir)}`,
  });
  for (const signal of SIGNALS) process.on(signal, () => supervisor.stop(0));
  // The supervising process is gone (killed, or its terminal closed): stop too.
  process.on("disconnect", () => supervisor.stop(1, "The supervising process disappeared."));

  let pidFile: string | undefined;
  try {
    await claimPorts(parts);
    pidFile = claimDataDir(settings);
  } catch (error) {
    console.error(startFailure(error));
    process.exit(1);
  }
  const code = await supervisor.run();
  rmSync(pidFile, { force: true });
  process.exit(code);
}

/** Throws, listing them, if any part's port is taken: nothing is touched before we know they are ours. */
async function claimPorts(parts: readonly Part[]): Promise<void> {
  const busy: string[] = [];
  // Listed from the last part to the first: the API's port first.
  for (const { name, variable, port } of [...parts].reverse().flatMap((part) => part.ports ?? [])) {
    const problem = await portProblem(port);
    if (problem) busy.push(`  ${port} (${name}, ${variable}): ${problem === "EADDRINUSE" ? "in use" : problem}`);
  }
  if (busy.length > 0) {
    throw new StartError(
      `Cannot start: these ports are not free on 127.0.0.1:\n${busy.join("\n")}\n` +
        "Is the stack already running (another `pnpm start`)? Stop it, or choose other ports " +
        "with the variables above.",
    );
  }
}

/** Why a port cannot be listened on (on 127.0.0.1), or undefined when it is free. */
function portProblem(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/**
 * Writes this process's pid to the pid file, unless another live stack's pid is there (a stale
 * file, left by a killed runner, is taken over). Answers the file, to remove once stopped.
 */
function claimDataDir(settings: Settings): string {
  const { dataDir, pidFile } = settings;
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(pidFile, `${process.pid}\n`, { flag: "wx" });
  } catch {
    const holder = Number(readFileSync(pidFile, "utf8").trim());
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
      throw new StartError(
        `Cannot start: another \`pnpm start\` (process ${holder}) is using ${shown(dataDir)}. ` +
          "Stop it first, or give this one another DATA_DIR.",
      );
    }
    writeFileSync(pidFile, `${process.pid}\n`);
  }
  return pidFile;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
