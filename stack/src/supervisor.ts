/**
 * Runs the parts of a stack: starts them one after another, watches their processes, starts a
 * dead one again where the part allows it, and stops them all in reverse order, when asked (exit
 * code 0) or when a part dies for good (exit code 1, naming the part's log). Knows nothing of
 * Postgres or Ponder: each part says how it starts, stops and restarts. Never exits the process
 * and installs no signal handler: the runner (runner.ts) does both.
 */
import type { ChildProcess } from "node:child_process";

/** One thing of the stack: a process (Postgres, the node, the indexer), a server, or a step. */
export interface Part {
  /** How the lines about it begin: "Postgres", "The indexer". */
  readonly name: string;
  /** How the list of what is being stopped names it: "Postgres", "indexer". */
  readonly shortName: string;
  /** Where it logs, named when it dies. */
  readonly log?: string;
  /** The ports it listens on, checked before anything starts. */
  readonly ports?: readonly PortClaim[];
  /**
   * Started again (with `restart`, announcing `message`) each time `part` has been started again:
   * for a part that cannot carry on across the other's restart.
   */
  readonly restartsAfter?: { readonly part: Part; readonly message: string };
  /** Starts it. Resolves once its process (if any) exists; `ready` says when it serves. */
  start(): Promise<Started>;
}

export interface PortClaim {
  /** As the refusal lists it: "API", "Hardhat node". */
  name: string;
  /** The variable that chooses another port. */
  variable: string;
  port: number;
}

/** A part once started. */
export interface Started {
  /** The process to watch: its exit while the stack runs is a death. */
  process?: ChildProcess;
  /** Resolves once the part serves; a stop asked for meanwhile does not wait for it. */
  ready?: Promise<void>;
  /** Stops it; absent for a part with nothing to stop. The supervisor waits at most 30 s. */
  stop?(): Promise<void>;
  /**
   * Starts it again after its process died, or when the part it `restartsAfter` was. Resolves
   * with the new process. Absent: the part's death stops the stack.
   */
  restart?(): Promise<ChildProcess | undefined>;
}

export interface SupervisorOptions {
  /** How often in a minute a part's process may die and be started again (0: never). */
  restartsPerMinute: number;
  /** A path as printed (a log). */
  show?: (file: string) => string;
  /** Printed once every part has started. */
  onReady?: () => void;
  /** Printed at the end of a clean stop ("Stopped." after a failure). */
  stoppedMessage?: string;
}

export interface Supervisor {
  /** Starts the parts in order; resolves with the exit code once they have all stopped again. */
  run(): Promise<number>;
  /**
   * Stops every started part in reverse order; while they start, once the current one is up.
   * `message` is printed first (to stderr); the first call decides the exit code.
   */
  stop(code?: number, message?: string): void;
}

/** A failure to report in one line, without a stack trace. */
export class StartError extends Error {}

/** How a failure to start is printed. */
export function startFailure(error: unknown): string {
  return error instanceof StartError ? error.message : `Start failed: ${(error as Error)?.stack ?? String(error)}`;
}

/** How long a part may take to stop before the next one is stopped all the same. */
const STOP_TIMEOUT_MS = 30_000;

/** A started part as the supervisor follows it. */
interface Running {
  part: Part;
  started: Started;
  /** Its process now: an exit of any other (one it replaced) is none of our business. */
  process?: ChildProcess;
  /** When its process died unexpectedly, within the last minute. */
  deaths: number[];
  /** Restarts asked for and not done: meanwhile an exit is the restart's doing, or undone by it. */
  restartsPending: number;
  /** The restarts run one after another. */
  restarts: Promise<unknown>;
}

/**
 * The stack goes through three phases. While `starting`, a stop request waits for the current
 * part (`stopRequested`); a death stops the stack. While `running`, a part that may be restarted
 * is. Once `stopping`, exits are expected and nothing is started again.
 */
type Phase = { name: "starting"; stopRequested?: { code: number } } | { name: "running" } | { name: "stopping" };

export function createSupervisor(parts: readonly Part[], options: SupervisorOptions): Supervisor {
  const show = options.show ?? ((file: string) => file);
  const running: Running[] = [];
  let phase: Phase = { name: "starting" };
  let wakeStartup: () => void = () => {};
  const startupInterrupted = new Promise<void>((resolve) => {
    wakeStartup = resolve;
  });
  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  const seeLog = (part: Part) => (part.log ? `; see ${show(part.log)}` : "");

  function stop(code = 0, message?: string): void {
    if (phase.name === "stopping" || (phase.name === "starting" && phase.stopRequested)) return;
    if (message) console.error(`\n${message}`);
    if (phase.name === "starting") {
      phase.stopRequested = { code };
      if (code === 0) console.log("\nStopping once the current step is done...");
      wakeStartup();
      return;
    }
    void stopAll(code);
  }

  async function stopAll(code: number): Promise<void> {
    if (phase.name === "stopping") return;
    phase = { name: "stopping" };
    const toStop = running.filter((entry) => entry.started.stop).reverse();
    if (toStop.length > 0) {
      const names = toStop.map((entry) => entry.part.shortName).join(", ");
      console.log(code === 0 ? `\nStopping: ${names}...` : "Stopping the other parts...");
    }
    for (const { part, started, restarts } of toStop) {
      try {
        // A restart under way finishes first, so that what it started is stopped too.
        const stopped = await within(
          restarts.then(() => (started.stop as () => Promise<void>)()).then(() => true),
          STOP_TIMEOUT_MS,
        );
        if (!stopped) {
          console.error(`  ${part.shortName} did not stop within ${STOP_TIMEOUT_MS / 1000} s`);
          code = code || 1;
        }
      } catch (error) {
        console.error(`  ${part.shortName} stopped with an error: ${(error as Error).message}`);
        code = code || 1;
      }
    }
    if (toStop.length > 0) console.log(code === 0 ? (options.stoppedMessage ?? "Stopped.") : "Stopped.");
    finish(code);
  }

  function watch(entry: Running, child: ChildProcess): void {
    entry.process = child;
    child.once("exit", (code, signal) => died(entry, child, signal ?? `code ${code}`));
  }

  function died(entry: Running, child: ChildProcess, how: string): void {
    if (phase.name === "stopping" || entry.process !== child || entry.restartsPending > 0) return;
    const { part, started } = entry;
    const now = Date.now();
    entry.deaths = [...entry.deaths, now].filter((at) => at > now - 60_000);
    const deaths = entry.deaths.length;
    if (!started.restart || phase.name === "starting" || deaths > options.restartsPerMinute) {
      const often = deaths > 1 && deaths > options.restartsPerMinute ? ` ${deaths} times in a minute` : "";
      stop(1, `${part.name} exited unexpectedly${often} (${how})${seeLog(part)}`);
      return;
    }
    const log = part.log ? ` (log: ${show(part.log)})` : "";
    console.error(`\n${part.name} exited unexpectedly (${how}); starting it again${log}...`);
    restart(entry, `${part.name} is running again.`);
  }

  /** Queues a restart of `entry`; `announce` is printed once it is back. */
  function restart(entry: Running, announce?: string): void {
    const { part, started } = entry;
    if (!started.restart) return;
    const restartPart = started.restart;
    entry.restartsPending++;
    const next = entry.restarts.then(() => restartPart());
    entry.restarts = next.catch(() => {});
    next.then(
      (child) => {
        entry.restartsPending--;
        if (phase.name === "stopping") return;
        if (announce) console.log(announce);
        if (child) watch(entry, child);
        for (const dependent of running) {
          if (dependent.part.restartsAfter?.part !== part) continue;
          console.log(dependent.part.restartsAfter.message);
          restart(dependent);
        }
      },
      (error: Error) => {
        entry.restartsPending--;
        stop(1, `${part.name} did not start again: ${error.message}${seeLog(part)}`);
      },
    );
  }

  /** The stop asked for while the parts start, if any. */
  const stopRequested = () => (phase.name === "starting" ? phase.stopRequested : undefined);

  /** Starts the parts in order; answers the exit code to stop with if they did not all start. */
  async function startAll(): Promise<number | undefined> {
    try {
      for (const part of parts) {
        if (stopRequested()) break;
        const started = await part.start();
        const entry: Running = { part, started, deaths: [], restartsPending: 0, restarts: Promise.resolve() };
        running.push(entry);
        if (started.process) watch(entry, started.process);
        if (started.ready) await Promise.race([started.ready, startupInterrupted]);
      }
    } catch (error) {
      // A stop asked for meanwhile (a death, Ctrl-C) explains the failure, and says how to exit.
      const requested = stopRequested();
      if (requested) return requested.code;
      console.error(startFailure(error));
      return 1;
    }
    return stopRequested()?.code;
  }

  async function run(): Promise<number> {
    const failed = await startAll();
    if (failed === undefined) {
      phase = { name: "running" };
      options.onReady?.();
    } else {
      await stopAll(failed);
    }
    return finished;
  }

  return { run, stop };
}

/** Resolves with the promise's value, or after `ms` with undefined. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
