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

/**
 * The condition on an app.agents row's `id` of the agents in `scope`: the ids, and the agents of
 * the wallets found by their index (an OR of the two conditions made Postgres scan every agent).
 */
export function inScopeSql(id: SQLWrapper, scope: AgentScope): SQL {
  const ids = [...new Set(scope.agentIds ?? [])];
  const wallets = [...new Set((scope.wallets ?? []).map((wallet) => wallet.toLowerCase()))];
  return sql`${id} IN (
    SELECT unnest(${sql.param(ids)}::uuid[])
    UNION
    SELECT by_wallet.id FROM app.agents by_wallet
    WHERE lower(by_wallet.wallet_address) = ANY(${sql.param(wallets)}::text[]))`;
}
