import { type SQL, type SQLWrapper, sql } from "drizzle-orm";

/** Some agents, by id and by wallet (any case): whose records and tiers a refresh counts again. */
export interface AgentScope {
  agentIds?: readonly string[];
  wallets?: readonly string[];
}

/** Whether `scope` names no agent at all. */
export function isEmptyScope(scope: AgentScope): boolean {
  return !scope.agentIds?.length && !scope.wallets?.length;
}

/** The condition on an app.agents row (its `id` and `wallet_address`) of the agents in `scope`. */
export function inScopeSql(id: SQLWrapper, walletAddress: SQLWrapper, scope: AgentScope): SQL {
  const ids = [...new Set(scope.agentIds ?? [])];
  const wallets = [...new Set((scope.wallets ?? []).map((wallet) => wallet.toLowerCase()))];
  return sql`(${id} = ANY(${sql.param(ids)}::uuid[]) OR lower(${walletAddress}) = ANY(${sql.param(wallets)}::text[]))`;
}
