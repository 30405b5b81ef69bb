/**
 * What the chain layer refuses. (A revert in simulation is {@link RelayRevertedError} in
 * `relayer.ts`; a node that does not answer is a transport error, `transport-error.ts`.)
 */

/**
 * A transaction handed in as proof of a step (funding, a move, a registration) does not prove it:
 * not mined, reverted, or made another call. `code` names the reason for the client.
 */
export class ProofRejectedError extends Error {
  readonly code: string;
  constructor(message: string, code = "bad_request") {
    super(message);
    this.name = "ProofRejectedError";
    this.code = code;
  }
}
