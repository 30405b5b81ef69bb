import { uuidOfEscrowRef } from "@agent-marketplace/contracts";
import { and, eq } from "drizzle-orm";
import { getAddress, type Hex, type TransactionReceipt } from "viem";
import type { Database } from "../../db/client.ts";
import { agents, listings, offers, transactions } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { acceptedOfferFor, recordOfferPurchase } from "../offers/offers.ts";
import type { ApiPaths } from "../shared/api-paths.ts";
import { badRequest, ConflictError, conflict, forbidden, notFound, PriceChangedError } from "../shared/errors.ts";
import { isUuid } from "../shared/ids.ts";
import {
  type EscrowFunding,
  escrowFunding,
  type FundingEscrowView,
  fundingEscrowView,
} from "../transactions/escrow-funding.ts";
import { queryTransactions } from "../transactions/transactions.ts";
import { type AwaitingApproval, awaitingApproval } from "../wallet/approval-requests.ts";
import type { SpendOrigin } from "../wallet/spending-caps.ts";
import { bountyAssignment, type ClaimedBounty } from "./bounty-assignment.ts";

/*
 * Purchases: a FIXED listing bought into a funded escrow, and a BOUNTY claimed. A hosted buyer's
 * custodial key signs the EIP-3009 funding and the relayer submits it (FUNDED, once the indexer
 * has the block). An external buyer gets the exact calls to send (or the typed data to sign) and
 * proves its funding with a second call carrying the transaction hash.
 */

type Agent = typeof agents.$inferSelect;
type TransactionRow = typeof transactions.$inferSelect;

export interface BuyInput {
  /** The agent the client named as buyer, if it did: must be `buyer`. */
  buyerAgentId?: string;
  /** Hours the seller has to deliver (an offer's own, when the purchase names one). */
  deadlineHours: number;
  /** The buyer's ACCEPTED offer on this listing: bought at its price (domain/offers/offers.ts). */
  offerId?: string;
  /** An external buyer's second call: the transaction that funded the escrow. */
  txHash?: Hex;
  /**
   * The price the buyer saw (the listing's, or its offer's): when the purchase would charge
   * another, 409 `price_changed` and nothing is sent.
   */
  expectedPriceWei?: string;
  /**
   * Who asks for a hosted buyer's purchase (domain/wallet/spending-caps.ts): its key by default,
   * its owner's session, or an approval being carried out.
   */
  origin?: SpendOrigin;
}

/** An escrow funded for the purchase (a hosted buyer's, or an external buyer's proven funding). */
export interface FundedPurchase extends FundingEscrowView {
  tx_hash: string;
  state: "FUNDED";
  message: string;
}

/** An external buyer's purchase awaiting its funding, with what to send. */
export interface PendingPurchase {
  transaction_id: string;
  escrow_id: string;
  escrow_id_bytes32: string;
  contract_address: string;
  seller_address: string;
  amount_wei: string;
  currency: "USDC";
  deadline: string;
  deadline_hours: number;
  instructions: ReturnType<EscrowFunding["instructions"]>;
  state: "PENDING";
}

function fundedAnswer(row: TransactionRow, buyerWallet: string, txHash: string): FundedPurchase {
  return {
    ...fundingEscrowView(row, buyerWallet),
    tx_hash: txHash,
    state: "FUNDED" as const,
    message: "Escrow funded. The seller has until the deadline to deliver.",
  };
}

export function purchaseUseCases(
  deps: Pick<Deps, "db" | "config" | "chain" | "escrow" | "relayer" | "indexed">,
  paths: ApiPaths,
) {
  const { db, chain, escrow } = deps;
  const funding = escrowFunding(deps, paths);
  const bounties = bountyAssignment(deps);

  /**
   * Buys the FIXED listing `listingId` for `buyer`: a hosted buyer's escrow is funded now; an
   * external buyer's first call answers PENDING with the instructions, its second call (with
   * `txHash`) proves the funding ({@link proveFunding}).
   */
  async function buy(
    buyer: Agent,
    listingId: string,
    input: BuyInput,
  ): Promise<FundedPurchase | PendingPurchase | AwaitingApproval> {
    if (input.buyerAgentId && input.buyerAgentId !== buyer.id) {
      throw forbidden("buyer_agent_id must be the agent of this API key");
    }
    if (!isUuid(listingId)) throw notFound("Listing");
    const [found] = await db
      .select({ listing: listings, seller: agents })
      .from(listings)
      .innerJoin(agents, eq(agents.id, listings.agentId))
      .where(eq(listings.id, listingId));
    if (!found) throw notFound("Listing");
    const { listing, seller } = found;
    if (listing.listingType !== "FIXED") throw badRequest("Only FIXED listings are bought; claim a BOUNTY");
    if (seller.id === buyer.id) throw badRequest("An agent cannot buy its own listing");
    if (!listing.isActive) throw conflict("This listing is not active");
    if (!seller.isActive || seller.isPaused) throw conflict("The seller is not taking orders now");
    const buyerWallet = getAddress(buyer.walletAddress);
    const sellerWallet = getAddress(seller.walletAddress);

    if (input.txHash) return proveFunding(input.txHash, listing.id, buyer.id, buyerWallet, sellerWallet);

    // An external buyer's retry of an offer's purchase it has not funded yet: the same instructions.
    const earlier =
      input.offerId && !buyer.hosted && (await unfundedOfferPurchase(input.offerId, buyer.id, listing.id));
    if (earlier) {
      if (input.expectedPriceWei !== undefined && BigInt(input.expectedPriceWei) !== BigInt(earlier.row.amountWei)) {
        throw new PriceChangedError(input.expectedPriceWei, earlier.row.amountWei);
      }
      return pendingAnswer(earlier.row, earlier.deadlineHours, buyerWallet, sellerWallet);
    }
    // An accepted offer sets the price and the deadline; it is marked bought with the purchase's
    // record, before anything is sent (a second purchase of it is refused then).
    const offer = input.offerId ? await acceptedOfferFor(db, input.offerId, buyer.id, listing.id) : undefined;
    const deadlineHours = offer?.deadlineHours ?? input.deadlineHours;
    const priceWei = offer?.priceWei ?? listing.priceWei;
    if (input.expectedPriceWei !== undefined && BigInt(input.expectedPriceWei) !== BigInt(priceWei)) {
      throw new PriceChangedError(input.expectedPriceWei, priceWei);
    }
    const row: TransactionRow = {
      id: crypto.randomUUID(),
      listingId: listing.id,
      buyerAgentId: buyer.id,
      sellerAgentId: seller.id,
      amountWei: priceWei,
      currency: "USDC",
      description: listing.title,
      ...(await funding.schedule(deadlineHours)),
      createdAt: new Date(),
      escrowRef: null,
    };
    const recordOffer = offer && ((tx: Pick<Database, "insert" | "update">) => recordOfferPurchase(tx, offer, row.id));

    if (buyer.hosted) {
      const funded = await funding.fundHosted(
        buyer,
        row,
        sellerWallet,
        {
          action: "buy",
          request: {
            listing_id: listing.id,
            ...(offer && { offer_id: offer.id }),
            deadline_hours: input.deadlineHours,
            expected_price_wei: priceWei,
          },
          summary: `Buy "${listing.title}" from ${seller.name}${offer ? " at the accepted offer's price" : ""}`,
          origin: input.origin ?? { kind: "agent" },
        },
        recordOffer,
      );
      if ("approval" in funded) return awaitingApproval(funded.approval);
      return fundedAnswer(row, buyerWallet, funded.txHash);
    }
    await db.transaction(async (tx) => {
      await tx.insert(transactions).values(row);
      await recordOffer?.(tx);
    });
    return pendingAnswer(row, deadlineHours, buyerWallet, sellerWallet);
  }

  /** What an external buyer's PENDING purchase `row` answers: its terms and the calls that fund it. */
  function pendingAnswer(
    row: TransactionRow,
    deadlineHours: number,
    buyerWallet: string,
    sellerWallet: string,
  ): PendingPurchase {
    const terms = funding.termsOf(row, buyerWallet, sellerWallet);
    return {
      transaction_id: row.id,
      escrow_id: row.id,
      escrow_id_bytes32: terms.escrowId,
      contract_address: escrow.escrow,
      seller_address: sellerWallet,
      amount_wei: row.amountWei,
      currency: "USDC" as const,
      deadline: row.deadline.toISOString(),
      deadline_hours: deadlineHours,
      instructions: funding.instructions(
        row,
        terms,
        `POST ${paths.buyListing(row.listingId ?? "{id}")} with { "tx_hash": "<the fund transaction>" }, or POST ${paths.confirmTransaction(row.id)} with { "tx_hash" }`,
      ),
      state: "PENDING" as const,
    };
  }

  /**
   * The purchase of the offer `offerId` an external buyer's earlier buy recorded and has not
   * funded yet (no escrow indexed for it): a retried buy answers it again instead of refusing.
   */
  async function unfundedOfferPurchase(offerId: string, buyerId: string, listingId: string) {
    if (!isUuid(offerId)) return undefined;
    const [found] = await db
      .select({ row: transactions, deadlineHours: offers.deadlineHours })
      .from(offers)
      .innerJoin(transactions, eq(transactions.id, offers.transactionId))
      .where(
        and(
          eq(offers.id, offerId),
          eq(offers.buyerAgentId, buyerId),
          eq(offers.listingId, listingId),
          eq(offers.status, "PURCHASED"),
        ),
      );
    if (!found) return undefined;
    const [read] = await queryTransactions(db, chain.chainId, { id: found.row.id, limit: 1 });
    return read?.escrow ? undefined : found;
  }

  /**
   * An external buyer's proof that `txHash` funded its PENDING purchase of `listingId`: the
   * receipt is read once, names the purchase (its Funded event) and is verified against its terms.
   */
  async function proveFunding(
    txHash: Hex,
    listingId: string,
    buyerId: string,
    buyerWallet: string,
    sellerWallet: string,
  ): Promise<FundedPurchase> {
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
    if (!receipt) throw badRequest(`No transaction ${txHash} has been mined on chain ${chain.chainId}`);
    const row = await pendingPurchaseFundedIn(receipt, listingId, buyerId);
    if (!row) throw badRequest(`Transaction ${txHash} did not fund a purchase of this listing by this agent`);
    const terms = funding.termsOf(row, buyerWallet, sellerWallet);
    await funding.completeWithTxHash(row, terms, txHash, buyerId, receipt);
    return fundedAnswer(row, buyerWallet, txHash);
  }

  /** The buyer's purchase of this listing whose escrow a Funded event of `receipt` names. */
  async function pendingPurchaseFundedIn(receipt: TransactionReceipt, listingId: string, buyerId: string) {
    for (const funded of escrow.fundedRefs(receipt)) {
      let transactionId: string;
      try {
        transactionId = uuidOfEscrowRef(funded.ref);
      } catch {
        continue;
      }
      const [row] = await db
        .select()
        .from(transactions)
        .where(
          and(
            eq(transactions.id, transactionId),
            eq(transactions.listingId, listingId),
            eq(transactions.buyerAgentId, buyerId),
          ),
        );
      if (row) return row;
    }
    return undefined;
  }

  /**
   * Claims the BOUNTY `listingId` for `claimant`: the first claim wins (bounty-assignment.ts). A
   * claim whose deadline passed may be taken over; a bounty that takes proposals is not claimed.
   */
  async function claim(claimant: Agent, listingId: string): Promise<ClaimedBounty> {
    const bounty = await bounties.openBounty(listingId, claimant.id, "claims");
    if (bounty.listing.acceptsProposals) {
      throw new ConflictError(
        `This bounty takes proposals: POST ${paths.bountyProposals("{id}")}, and its poster picks one`,
        { listing_id: bounty.listing.id },
        "bounty_takes_proposals",
      );
    }
    return bounties.assign(bounty, claimant);
  }

  return { buy, proveFunding, claim };
}

export type PurchaseUseCases = ReturnType<typeof purchaseUseCases>;
