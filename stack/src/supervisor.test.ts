import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createSupervisor, type Part, StartError, type Started, type SupervisorOptions } from "./supervisor.ts";

/** A real process that runs until it is signalled. */
function sleeper(): ChildProcess {
  return spawn(process.execPath, ["-e", "setInterval(() => {}, 1_000_000)"], { stdio: "ignore" });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  await exited(child);
}

/** Every process the fakes started, killed after each test whatever happened. */
const spawned: ChildProcess[] = [];

interface FakePart extends Part {
  /** Its process now (a new one after each restart). */
  child?: ChildProcess;
}

/**
 * A part made of one `node -e` process, noting in `events` when it starts, stops and restarts.
 * `restartable` gives it a restart; `fails` makes its start throw; `ready` is awaited as its ready.
 */
function fakePart(
  name: string,
  events: string[],
  options: { restartable?: boolean; fails?: Error; ready?: Promise<void>; restartsAfter?: Part } = {},
): FakePart {
  const part: FakePart = {
    name,
    shortName: name.toLowerCase(),
    log: `${name.toLowerCase()}.log`,
    ...(options.restartsAfter && {
      restartsAfter: {
        part: options.restartsAfter,
        message: `Starting ${name} again after ${options.restartsAfter.name}`,
      },
    }),
    async start() {
      events.push(`start ${name}`);
      if (options.fails) throw options.fails;
      part.child = sleeper();
      spawned.push(part.child);
      const started: Started = {
        process: part.child,
        ready: options.ready,
        async stop() {
          events.push(`stop ${name}`);
          if (part.child) await stopProcess(part.child);
        },
      };
      if (options.restartable) {
        started.restart = async () => {
          events.push(`restart ${name}`);
          if (part.child) await stopProcess(part.child);
          part.child = sleeper();
          spawned.push(part.child);
          return part.child;
        };
      }
      return started;
    },
  };
  return part;
}

/** Resolves once `check` holds, polling every 20 ms for at most 5 s. */
async function until(check: () => boolean): Promise<void> {
  for (let tries = 0; !check(); tries++) {
    if (tries > 250) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let output: string[];

beforeEach(() => {
  output = [];
  const note = (...args: unknown[]) => {
    output.push(args.join(" "));
  };
  vi.spyOn(console, "log").mockImplementation(note);
  vi.spyOn(console, "error").mockImplementation(note);
});

afterEach(async () => {
  vi.restoreAllMocks();
  for (const child of spawned) child.kill("SIGKILL");
  await Promise.all(spawned.splice(0).map(exited));
});

const options = (extra: Partial<SupervisorOptions> = {}): SupervisorOptions => ({
  restartsPerMinute: 3,
  stoppedMessage: "Stopped. Data kept in .data",
  ...extra,
});

describe("createSupervisor", () => {
  it("starts the parts in order, is ready once all are up, and stops them in reverse order with code 0", async () => {
    const events: string[] = [];
    const parts = [fakePart("A", events), fakePart("B", events), fakePart("C", events)];
    const onReady = vi.fn(() => events.push("ready"));
    const supervisor = createSupervisor(parts, options({ onReady }));
    const stopped = supervisor.run();
    await until(() => onReady.mock.calls.length === 1);
    expect(events).toEqual(["start A", "start B", "start C", "ready"]);

    supervisor.stop(0);
    expect(await stopped).toBe(0);
    expect(events.slice(4)).toEqual(["stop C", "stop B", "stop A"]);
    expect(output).toContain("\nStopping: c, b, a...");
    expect(output.at(-1)).toBe("Stopped. Data kept in .data");
    for (const part of parts) expect(part.child?.signalCode).toBe("SIGTERM");
  });

  it("when a part dies, stops the others in reverse order and exits 1, naming the part's log", async () => {
    const events: string[] = [];
    const [a, b, c] = [fakePart("A", events), fakePart("B", events), fakePart("C", events)];
    const supervisor = createSupervisor([a, b, c], options({ onReady: () => events.push("ready") }));
    const stopped = supervisor.run();
    await until(() => events.includes("ready"));

    b.child?.kill("SIGKILL");
    expect(await stopped).toBe(1);
    expect(events.slice(4)).toEqual(["stop C", "stop B", "stop A"]);
    expect(output).toContain("\nB exited unexpectedly (SIGKILL); see b.log");
    expect(output).toContain("Stopping the other parts...");
    expect(output.at(-1)).toBe("Stopped.");
    expect(a.child?.signalCode).toBe("SIGTERM");
    expect(c.child?.signalCode).toBe("SIGTERM");
  });

  it("starts a restartable part again, restartsPerMinute times a minute; one death more stops the stack", async () => {
    const events: string[] = [];
    const a = fakePart("A", events);
    const b = fakePart("B", events, { restartable: true });
    const supervisor = createSupervisor([a, b], options({ restartsPerMinute: 1, onReady: () => events.push("ready") }));
    const stopped = supervisor.run();
    await until(() => events.includes("ready"));

    const first = b.child;
    first?.kill("SIGKILL");
    await until(() => output.includes("B is running again."));
    expect(output).toContain("\nB exited unexpectedly (SIGKILL); starting it again (log: b.log)...");
    expect(b.child).not.toBe(first);

    b.child?.kill("SIGKILL");
    expect(await stopped).toBe(1);
    expect(output).toContain("\nB exited unexpectedly 2 times in a minute (SIGKILL); see b.log");
    expect(events).toEqual(["start A", "start B", "ready", "restart B", "stop B", "stop A"]);
  });

  it("starts a part again after the part it depends on was, without counting it as a death", async () => {
    const events: string[] = [];
    const a = fakePart("A", events, { restartable: true });
    const b = fakePart("B", events, { restartable: true, restartsAfter: a });
    const supervisor = createSupervisor([a, b], options({ restartsPerMinute: 1, onReady: () => events.push("ready") }));
    const stopped = supervisor.run();
    await until(() => events.includes("ready"));

    const replaced = b.child;
    a.child?.kill("SIGKILL");
    await until(() => events.includes("restart B") && b.child !== replaced);
    expect(output).toContain("A is running again.");
    expect(output).toContain("Starting B again after A");
    // The process B replaced itself is no death of B's: its one restart a minute is still there.
    await exited(replaced as ChildProcess);
    b.child?.kill("SIGKILL");
    await until(() => output.includes("B is running again."));

    supervisor.stop(0);
    expect(await stopped).toBe(0);
    expect(events).toEqual(["start A", "start B", "ready", "restart A", "restart B", "restart B", "stop B", "stop A"]);
  });

  it("when a part fails to start, starts no later part, stops the earlier ones and exits 1", async () => {
    const events: string[] = [];
    const onReady = vi.fn();
    const parts = [
      fakePart("A", events),
      fakePart("B", events, { fails: new StartError("B could not start; see b.log") }),
      fakePart("C", events),
    ];
    const code = await createSupervisor(parts, options({ onReady })).run();
    expect(code).toBe(1);
    expect(events).toEqual(["start A", "start B", "stop A"]);
    expect(output).toContain("B could not start; see b.log");
    expect(onReady).not.toHaveBeenCalled();
  });

  it("prints an unexpected failure to start with its stack trace", async () => {
    const events: string[] = [];
    const code = await createSupervisor([fakePart("A", events, { fails: new Error("boom") })], options()).run();
    expect(code).toBe(1);
    expect(output[0]).toMatch(/^Start failed: Error: boom\n\s+at /);
    // Nothing ran, so nothing is stopped or announced as stopped.
    expect(output).toHaveLength(1);
  });

  it("on a stop asked for while a part gets ready, stops what started without waiting for it", async () => {
    const events: string[] = [];
    const never = new Promise<void>(() => {});
    const parts = [fakePart("A", events), fakePart("B", events, { ready: never }), fakePart("C", events)];
    const onReady = vi.fn();
    const supervisor = createSupervisor(parts, options({ onReady }));
    const stopped = supervisor.run();
    await until(() => events.includes("start B"));

    supervisor.stop(0);
    expect(await stopped).toBe(0);
    expect(events).toEqual(["start A", "start B", "stop B", "stop A"]);
    expect(output).toContain("\nStopping once the current step is done...");
    expect(onReady).not.toHaveBeenCalled();
  });

  it("a death while the parts start stops the stack, even for a restartable part", async () => {
    const events: string[] = [];
    let becomeReady: () => void = () => {};
    const a = fakePart("A", events, { restartable: true });
    const b = fakePart("B", events, {
      ready: new Promise<void>((resolve) => {
        becomeReady = resolve;
      }),
    });
    const supervisor = createSupervisor([a, b], options());
    const stopped = supervisor.run();
    await until(() => events.includes("start B"));

    a.child?.kill("SIGKILL");
    expect(await stopped).toBe(1);
    becomeReady();
    expect(output).toContain("\nA exited unexpectedly (SIGKILL); see a.log");
    expect(events).toEqual(["start A", "start B", "stop B", "stop A"]);
  });
});
