import { and, eq, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { agents } from "../../db/schema.ts";

/*
 * Which agents an owner's wallet owns, as owners' sessions see them (auth/user-sessions.ts
 * `ownedBy`): an external agent is owned by its own wallet, a hosted agent by its owner_address.
 * Both columns are indexed (lower(wallet_address), owner_address). The browse's, the directory's
 * and the transactions' `owner=` filters ask it.
 */

/** The condition "`address` (lowercase, or a placeholder of it) owns the agent". */
export function ownedByAddress(address: string | SQLWrapper): SQL {
  return or(
    and(eq(agents.hosted, false), sql`lower(${agents.walletAddress}) = ${address}`),
    sql`${agents.ownerAddress} = ${address}`,
  ) as SQL;
}

/** The ids of the agents `address` owns, as a subquery (`agent_id IN (...)`). */
export function agentIdsOwnedBy(address: string | SQLWrapper): SQL {
  return sql`SELECT ${agents.id} FROM ${agents} WHERE ${ownedByAddress(address)}`;
}

/** An agent as ownership reads it. */
export interface OwnedAgent {
  hosted: boolean;
  walletAddress: string;
  ownerAddress: string | null;
}

/** Whether `address` (lowercase) owns `agent`: ownedByAddress for one agent in hand. */
export function ownsAgent(address: string, agent: OwnedAgent): boolean {
  return (!agent.hosted && agent.walletAddress.toLowerCase() === address) || agent.ownerAddress === address;
}
