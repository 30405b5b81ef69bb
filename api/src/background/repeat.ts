/**
 * Runs `run` now (or `firstAfterMs` from now, for a caller that has just run it) and again
 * `intervalMs` after each run ends (runs never overlap or pile up), until the returned stop is
 * called; stop waits for a run in progress. A run's error goes to `onError` and the next run still
 * comes. The timer does not keep the process alive.
 */
export function repeatEvery(
  intervalMs: number,
  run: () => Promise<unknown>,
  onError: (error: unknown) => void,
  firstAfterMs = 0,
): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const loop = () => {
    running = run()
      .then(
        () => {},
        (error: unknown) => onError(error),
      )
      .then(() => {
        if (!stopped) {
          timer = setTimeout(loop, intervalMs);
          timer.unref();
        }
      });
  };
  timer = setTimeout(loop, firstAfterMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
