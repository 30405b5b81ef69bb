import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Whether the request running now had the relayer sign and record a transaction: until then a
 * failure (the node unreachable) has changed nothing on the chain. Set by the relayer, read by
 * the `Idempotency-Key` middleware.
 */
const scope = new AsyncLocalStorage<{ sent: boolean }>();

/** Runs `work` and answers whether anything was sent during it. */
export async function trackSends(work: () => Promise<void>): Promise<{ sent: boolean }> {
  const sends = { sent: false };
  await scope.run(sends, work);
  return sends;
}

/** Marks the running request as having sent (called before the outbox record is written). */
export function markSent(): void {
  const sends = scope.getStore();
  if (sends) sends.sent = true;
}
