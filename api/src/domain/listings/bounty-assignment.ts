import { and, eq, isNull } from "drizzle-orm";
import { getAddress, type Hex } from "viem";
import type { DbTransaction } from "../../db/client.ts";
import { type agents, listings, transactions } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { badRequest, conflict, EscrowRefusedError, notFound, TransactionRevertedError } from "../shared/errors.ts";
import { isUuid } from "../shared/ids.ts";
import { transactionWrite } from "../shared/read-your-writes.ts";
import { createSettlement } from "../shared/settlement.ts";
import { termsOfEscrow } from "../transactions/escrow-terms.ts";
import { queryTransactions } from "../transactions/transactions.ts";

/*
 * A bounty's seller named on chain: the relayer (the escrow's operator) assigns the seller with a
 * delivery deadline. One path for both ways a bounty is taken: the first claim (purchases.ts), or
 * the poster's choice among proposals (proposals.ts).
 */

type Agent = typeof agents.$inferSelect;
type ListingRow = typeof listings.$inferSelect;

/** What a bounty is taken for: a claim, or a proposal (made or accepted). */
export type BountyUse = "claims" | "proposals";

/** A FUNDED bounty nobody holds now (unassigned, or its claim lapsed), as read when it is taken. */
export interface OpenBounty {
  listing: ListingRow;
  transactionId: string;
  /** The escrow's id on chain (derived from the poster: `escrowIdOf(buyer, ref)`). */
  escrowId: Hex;
  /** The seller the database names (null while unassigned, and after a lapsed claim is cleared). */
  sellerAgentId: string | null;
  terms: ReturnType<typeof termsOfEscrow>;
  /** The chain's time, in seconds. */
  now: number;
}

export interface ClaimedBounty {
  success: true;
  transaction_id: string;
  message: string;
  deadline: string;
  tx_hash: string;
  state: "FUNDED";
}

export function bountyAssignment(deps: Pick<Deps, "db" | "chain" | "escrow" | "relayer" | "indexed">) {
  const { db, chain, escrow } = deps;
  const settle = createSettlement(deps);

  /**
   * The BOUNTY `listingId`, open now to `agentId` for `use`: 404 when unknown, 400 for a FIXED
   * listing or the agent's own bounty, 409 when it is delisted, not funded, expired or held by a
   * claim whose deadline has not passed.
   */
  async function openBounty(listingId: string, agentId: string, use: BountyUse): Promise<OpenBounty> {
    if (!isUuid(listingId)) throw notFound("Listing");
    const [found] = await db
      .select({ listing: listings, transaction: transactions })
      .from(listings)
      .innerJoin(transactions, eq(transactions.listingId, listings.id))
      .where(and(eq(listings.id, listingId), eq(listings.listingType, "BOUNTY")));
    if (!found) {
      const [listing] = await db
        .select({ type: listings.listingType })
        .from(listings)
        .where(eq(listings.id, listingId));
      if (!listing) throw notFound("Listing");
      throw badRequest(
        use === "claims"
          ? "Only BOUNTY listings are claimed; buy a FIXED listing"
          : "Proposals are made on BOUNTY listings; make an offer on a FIXED one",
      );
    }
    const { listing, transaction } = found;
    if (listing.agentId === agentId) {
      throw badRequest(use === "claims" ? "An agent cannot claim its own bounty" : "This is your own bounty");
    }
    if (!listing.isActive) throw conflict("This bounty is not open");
    const [row] = await queryTransactions(db, chain.chainId, { id: transaction.id, limit: 1 });
    const e = row?.escrow;
    if (e?.status !== "FUNDED") {
      throw conflict(`This bounty is not open for ${use}`, { state: e ? e.status : "PENDING" });
    }
    const now = await escrow.now();
    if (listing.bountyExpiresAt && now * 1000 >= listing.bountyExpiresAt.getTime()) {
      throw conflict("This bounty has expired; its reward goes back to the poster");
    }
    const heldBySomeone = BigInt(e.seller) !== 0n;
    if (heldBySomeone && Number(e.deadline) >= now) {
      throw conflict(use === "claims" ? "This bounty is already claimed" : "This bounty already has its seller");
    }
    return {
      listing,
      transactionId: transaction.id,
      escrowId: e.id as Hex,
      sellerAgentId: transaction.sellerAgentId,
      terms: termsOfEscrow(e),
      now,
    };
  }

  /**
   * Names `seller` the seller of `bounty` on chain, with the bounty's delivery deadline. The
   * assignment is taken in the database with the outbox record (with `alsoRecord`'s rows): of
   * concurrent assignments, the relayer's lock lets one in; the others find the seller set and
   * send nothing (409).
   */
  async function assign(
    bounty: OpenBounty,
    seller: Agent,
    alsoRecord?: (tx: DbTransaction) => Promise<void>,
  ): Promise<ClaimedBounty> {
    const deadline = bounty.now + (bounty.listing.bountyDeliveryHours ?? 72) * 3600;
    const sent = await settle(
      escrow.relayedAssignSeller(bounty.escrowId, bounty.terms, getAddress(seller.walletAddress), deadline),
      {
        transactionId: bounty.transactionId,
        record: async (tx) => {
          const taken = await tx
            .update(transactions)
            .set({ sellerAgentId: seller.id, deadline: new Date(deadline * 1000) })
            .where(
              and(
                eq(transactions.id, bounty.transactionId),
                bounty.sellerAgentId
                  ? eq(transactions.sellerAgentId, bounty.sellerAgentId)
                  : isNull(transactions.sellerAgentId),
              ),
            )
            .returning({ id: transactions.id });
          if (taken.length === 0) throw conflict("This bounty was just taken by another agent");
          await alsoRecord?.(tx);
        },
        refused: (reason) => new EscrowRefusedError(`The escrow refused the assignment: ${reason}`),
        reverted: (txHash) => new TransactionRevertedError(`The assignment transaction ${txHash} reverted`),
        indexed: transactionWrite("Claimed", bounty.transactionId),
      },
    );
    return {
      success: true as const,
      transaction_id: bounty.transactionId,
      message: "Claimed. Deliver before the deadline; the reward is released after the dispute window.",
      deadline: new Date(deadline * 1000).toISOString(),
      tx_hash: sent.txHash,
      state: "FUNDED" as const,
    };
  }

  return { openBounty, assign };
}

export type BountyAssignment = ReturnType<typeof bountyAssignment>;
