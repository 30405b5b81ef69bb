/**
 * Several API processes behind one port (API_PROCESSES=N, node:cluster). The primary process
 * serves nothing itself: it forks N workers that each run the whole server (startServer) with
 * API_INSTANCE=1..N, and hands each new connection to the next worker in turn (round-robin). Every
 * duty two processes could do twice is coordinated in Postgres (migrations, relayer nonces, the
 * keeper's sends, the notifier, webhook deliveries, rate limits, idempotency keys); the browse
 * cache is each process's own.
 *
 * - Ready once every worker listens: the primary logs "API listening" and, when its parent gave it
 *   an IPC channel (`pnpm start`), sends it `{ type: "api-ready", url, processes }`.
 * - A worker that dies (before it listens, or while it serves) is not started again: the primary
 *   stops the others and exits 1, as the one API process dying would end `node src/main.ts`. The
 *   process manager above (systemd, the container's orchestrator, `pnpm start`) decides what next.
 * - SIGINT, SIGTERM or SIGHUP: every worker closes (open requests get their grace period), then
 *   the primary exits 0. Ctrl-C in a terminal reaches the workers too; each closes once either way.
 */
import cluster, { type Worker } from "node:cluster";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { type Config, loadConfig } from "./config.ts";
import { startServer } from "./server.ts";

/** The script every API process runs (the workers too). */
export const API_MAIN_SCRIPT = fileURLToPath(new URL("./main.ts", import.meta.url));

/** What the primary sends its parent once every worker listens. */
export interface ApiReadyMessage {
  type: "api-ready";
  url: string;
  processes: number;
}

/** What the primary sends a worker to make it close. */
const STOP_MESSAGE = { type: "api-stop" } as const;
/** How long a worker has to close before it is killed (its own grace for open requests is 2 s). */
const WORKER_STOP_TIMEOUT_MS = 20_000;
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * The primary: forks `processes` workers on the port of `env` and runs until a signal or a
 * worker's death. Resolves with the exit code (0 after a signal, 1 after a death).
 */
export async function runClusterPrimary(processes: number, env: Record<string, string | undefined> = process.env) {
  // Checked once here: a mistake is one message, not one per worker.
  const config = loadConfig(env);
  const logger = pino({ level: config.logLevel, base: { service: "api-cluster" } });
  cluster.setupPrimary({ exec: API_MAIN_SCRIPT, args: [] });

  const workers = new Map<number, Worker>();
  const listening = new Set<number>();
  let stopping: Promise<void> | undefined;
  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });

  const stopAll = (code: number) => {
    stopping ??= Promise.all([...workers.values()].map(stopWorker)).then(() => finish(code));
    return stopping;
  };

  for (let instance = 1; instance <= processes; instance++) {
    const worker = cluster.fork({ ...env, API_INSTANCE: String(instance) });
    workers.set(instance, worker);
    worker.on("listening", (address) => {
      listening.add(instance);
      if (listening.size < processes || stopping) return;
      const url = `http://${config.host}:${address.port}`;
      logger.info({ url, processes }, "API listening");
      process.send?.({ type: "api-ready", url, processes } satisfies ApiReadyMessage, () => {});
    });
    worker.on("exit", (code, signal) => {
      if (stopping) return;
      const how = signal ?? `code ${code}`;
      const when = listening.has(instance) ? "exited" : "exited before it listened";
      logger.error({ instance, pid: worker.process.pid, exit: how }, `API process ${instance} ${when}`);
      void stopAll(1);
    });
  }

  for (const signal of SIGNALS) process.on(signal, () => void stopAll(0));
  // The parent that started us with an IPC channel (pnpm start) is gone: stop too.
  process.on("disconnect", () => void stopAll(1));
  return finished;
}

/** Asks a worker to close; kills it if it has not within WORKER_STOP_TIMEOUT_MS. */
function stopWorker(worker: Worker): Promise<void> {
  if (worker.isDead()) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => worker.process.kill("SIGKILL"), WORKER_STOP_TIMEOUT_MS);
    worker.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    // A closed channel (it is on its way out: Ctrl-C reached it too) is no error here.
    worker.send(STOP_MESSAGE, () => {});
  });
}

/**
 * A worker: serves like the single process (startServer), and closes when the primary asks, on
 * a signal, or when the primary is gone; exits 0 once closed.
 */
export async function runClusterWorker(config: Config): Promise<void> {
  const server = await startServer(config);
  let closing: Promise<void> | undefined;
  const close = (code: number) => {
    if (closing) return;
    // Closing waits on the primary for the shared port: without it (gone), exit all the same.
    setTimeout(() => process.exit(code), WORKER_STOP_TIMEOUT_MS / 2).unref();
    closing = server.close().then(
      () => process.exit(code),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on("message", (message: unknown) => {
    if ((message as { type?: string } | null)?.type === STOP_MESSAGE.type) close(0);
  });
  for (const signal of SIGNALS) process.on(signal, () => close(0));
  process.on("disconnect", () => close(1));
}
