import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { listings } from "../../db/schema.ts";
import { escrowColumnsOf, escrowMatchesSql, expectedTermsOf } from "../transactions/escrow-match.ts";

/*
 * A bounty's listing follows its escrow: an external poster's bounty is hidden until its reward is
 * funded, then listed once (by its confirm, or by the keeper finding the funded escrow when the
 * poster never confirmed). A bounty its owner delisted after funding stays delisted.
 */

/** Lists a bounty that was awaiting its funding; true if this call listed it. */
export async function listFundedBounty(db: Pick<Database, "update">, listingId: string): Promise<boolean> {
  const listed = await db
    .update(listings)
    .set({ isActive: true, awaitingFunding: false, updatedAt: new Date() })
    .where(and(eq(listings.id, listingId), eq(listings.listingType, "BOUNTY"), eq(listings.awaitingFunding, true)))
    .returning({ id: listings.id });
  return listed.length > 0;
}

/**
 * Bounties still awaiting funding whose escrow the indexer has seen funded by the poster for the
 * reward (the same rule as a transaction's escrow: escrow-match.ts).
 */
export async function fundedBountiesAwaitingListing(db: Database, chainId: number, limit = 50): Promise<string[]> {
  const { rows } = await db.execute<{ id: string }>(sql`
    SELECT l.id
    FROM app.listings l
    JOIN app.transactions t ON t.listing_id = l.id
    JOIN app.agents p ON p.id = t.buyer_agent_id
    LEFT JOIN app.agents s ON s.id = t.seller_agent_id
    JOIN chain.escrow e ON e.chain_id = ${chainId} AND e.uuid = t.id::text
      AND ${escrowMatchesSql(escrowColumnsOf("e"), expectedTermsOf("t", "p", "s"))}
    WHERE l.awaiting_funding AND l.listing_type = 'BOUNTY'
    LIMIT ${limit}`);
  return rows.map((row) => row.id);
}
