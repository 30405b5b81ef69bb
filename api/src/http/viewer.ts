import type { OwnerViewer, TransactionViewer } from "../domain/transactions/transactions.ts";
import type { AppEnv, AuthenticatedAgent } from "./env.ts";

/** Who reads, as the `viewer` guard found it: the agent acted as, and whether it is the arbiter. */
export function viewerOf(c: { var: { agent?: AuthenticatedAgent; arbiter?: true } }): TransactionViewer {
  return { agentId: c.var.agent?.id, arbiter: c.var.arbiter === true };
}

/**
 * Who asks for an owner's records: the agent the caller acts as (its key, or a session with
 * X-Agent-Id), and the address of its owner's live session when the request carries one (the
 * viewer guard looks the session up, with or without X-Agent-Id).
 */
export function ownerViewerOf(c: {
  var: { agent?: AuthenticatedAgent; session?: { address: string } } & Pick<AppEnv["Variables"], "liveSession">;
}): OwnerViewer {
  return { agent: c.var.agent?.row, sessionAddress: c.var.session?.address ?? c.var.liveSession?.address };
}
