import { BaseError, HttpRequestError, TimeoutError } from "viem";

/**
 * Whether an error is the transport's to the node (unreachable, an HTTP failure, a timeout) and
 * not the call's: the chain said nothing, so it is neither a revert nor a refusal. Answered 503.
 */
export function isTransportError(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    Boolean(error.walk((cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError))
  );
}
