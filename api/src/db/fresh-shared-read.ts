/**
 * A read that callers at the same moment share, where each caller still gets an answer read after
 * it asked: a caller that arrives while a run is under way waits for the next run, which starts when
 * that one ends and answers everyone who arrived meanwhile. So a read that costs Postgres the same
 * whoever asks (marketplace-wide counts) runs at most once at a time, one more waiting, however many
 * requests want it, and no answer is older than the request (a write committed before it is seen).
 * A failed run fails the callers it answers; the next caller starts a new one.
 */
export function freshSharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let waiting: Promise<T> | undefined;

  const start = (): Promise<T> => {
    const run = read().finally(() => {
      running = undefined;
    });
    running = run;
    return run;
  };

  return () => {
    if (!running) return start();
    waiting ??= running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        waiting = undefined;
        return start();
      });
    return waiting;
  };
}
