import type { TransactionViewer } from "../domain/transactions/transactions.ts";
import type { AuthenticatedAgent } from "./env.ts";

/** Who reads, as the `viewer` guard found it: the agent acted as, and whether it is the arbiter. */
export function viewerOf(c: { var: { agent?: AuthenticatedAgent; arbiter?: true } }): TransactionViewer {
  return { agentId: c.var.agent?.id, arbiter: c.var.arbiter === true };
}
