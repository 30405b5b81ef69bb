/** A part of a probe or a scrape that did not answer within its time. */
export class TimedOutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`);
    this.name = "TimedOutError";
  }
}

/**
 * `work`, or a {@link TimedOutError} after `ms`: the caller answers on time. The work itself goes
 * on (a query or an RPC call cannot be taken back), so what starts it should not start another
 * meanwhile ({@link sharedWhileRunning}).
 */
export function timeBoxed<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOutError(what, ms)), ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A read that callers share while it runs: a caller that arrives during a run gets that run's
 * answer, so a read that hangs (a stalled database, a node that does not answer) is never started
 * twice, however often it is asked for.
 */
export function sharedWhileRunning<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  return () => {
    running ??= read().finally(() => {
      running = undefined;
    });
    return running;
  };
}
