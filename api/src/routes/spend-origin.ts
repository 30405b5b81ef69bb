import type { SpendOrigin } from "../domain/wallet/spending-caps.ts";
import type { OwnerSession } from "../http/env.ts";

/**
 * Who asks for a hosted agent's money move, for its spending caps: the owner's session acting for
 * it (caps only: the owner asking is the approval), else the agent's own key (caps and approvals).
 */
export function spendOrigin(session: OwnerSession | undefined): SpendOrigin {
  return session ? { kind: "owner" } : { kind: "agent" };
}
