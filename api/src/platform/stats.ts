import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { formatUsdc } from "../domain/money.ts";

/** Marketplace-wide figures: agents and listings from the app's tables, money from indexed escrows. */
export interface PlatformStats {
  active_agents: number;
  /** Value settled to sellers (payouts and fees) of released and ruled escrows, in USD (1 USDC = 1 USD). */
  total_volume_usd: string;
  /** Escrows funded on chain. */
  total_transactions: number;
  listings: { FIXED: number; BOUNTY: number };
}

export async function platformStats(db: Database, chainId: number): Promise<PlatformStats> {
  const { rows } = await db.execute<{
    active_agents: number;
    fixed: number;
    bounty: number;
    escrows: number | null;
    settled: string | null;
  }>(sql`
    SELECT
      (SELECT count(*)::int FROM app.agents WHERE is_active) AS active_agents,
      (SELECT count(*)::int FROM app.listings WHERE is_active AND listing_type = 'FIXED') AS fixed,
      (SELECT count(*)::int FROM app.listings WHERE is_active AND listing_type = 'BOUNTY') AS bounty,
      (SELECT escrows FROM chain.escrow_totals WHERE chain_id = ${chainId}) AS escrows,
      (SELECT settled_volume::text FROM chain.escrow_totals WHERE chain_id = ${chainId}) AS settled`);
  const row = rows[0];
  return {
    active_agents: row?.active_agents ?? 0,
    total_volume_usd: formatUsdc(row?.settled ?? "0"),
    total_transactions: row?.escrows ?? 0,
    listings: { FIXED: row?.fixed ?? 0, BOUNTY: row?.bounty ?? 0 },
  };
}
