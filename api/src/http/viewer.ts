import type { Context } from "hono";
import type { TransactionViewer } from "../domain/transactions/transactions.ts";
import type { AppEnv } from "./env.ts";

/** Who reads, as the `viewer` guard found it: the agent acted as, and whether it is the arbiter. */
export function viewerOf(c: Context<AppEnv>): TransactionViewer {
  return { agentId: c.get("agent")?.id, arbiter: c.get("arbiter") === true };
}
