/**
 * One service of the rehearsal (the API, the indexer, the keeper) as an operator's process manager
 * runs it: its own process group (a kill takes its children too, as systemd's does), its standard
 * output (the JSON log lines) appended to `logFile` and its standard error (Node's own warnings) to
 * `<logFile without .log>.stderr.log`, ready once its health URL answers 200.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { openSync } from "node:fs";

export interface ServiceSpec {
  name: string;
  /** Node.js arguments: flags, then the script. */
  args: string[];
  env: Record<string, string>;
  logFile: string;
  /** 200 here means ready. */
  readyUrl: string;
  readyTimeoutMs?: number;
}

export class ServiceProcess {
  private child: ChildProcess | undefined;
  /** Starts, and how long each start took until ready (ms). */
  readonly starts: number[] = [];

  readonly spec: ServiceSpec;

  constructor(spec: ServiceSpec) {
    this.spec = spec;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<number> {
    const began = performance.now();
    const output = openSync(this.spec.logFile, "a");
    const errors = openSync(this.spec.logFile.replace(/\.log$/, ".stderr.log"), "a");
    const child = spawn(process.execPath, this.spec.args, {
      env: this.spec.env,
      stdio: ["ignore", output, errors],
      detached: true,
    });
    this.child = child;
    const timeout = this.spec.readyTimeoutMs ?? 180_000;
    const until = Date.now() + timeout;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `${this.spec.name} exited (${child.exitCode ?? child.signalCode}) before it was ready; see ${this.spec.logFile}`,
        );
      }
      const status = await fetch(this.spec.readyUrl, { signal: AbortSignal.timeout(2_000) }).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) break;
      if (Date.now() > until) throw new Error(`${this.spec.name} was not ready within ${timeout / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const took = Math.round(performance.now() - began);
    this.starts.push(took);
    return took;
  }

  /** SIGKILL to the whole group, as a crash or the OOM killer would; waits for the exit. */
  async kill(): Promise<void> {
    await this.signal("SIGKILL");
  }

  /** SIGTERM (a clean stop), SIGKILL after `graceMs`. */
  async stop(graceMs = 20_000): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    this.sendToGroup("SIGTERM");
    const timer = setTimeout(() => this.sendToGroup("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    this.sendToGroup(signal);
    await exited;
  }

  private sendToGroup(signal: NodeJS.Signals) {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  }
}
