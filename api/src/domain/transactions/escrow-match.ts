import type { EscrowState } from "@agent-marketplace/indexer";
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { zeroAddress } from "viem";
import type { IndexedEscrowTerms } from "./escrow-terms.ts";

/*
 * When an escrow on chain is a transaction's escrow: the one rule every read, the keeper, the
 * notifier, reviews and the dispute desk apply (as SQL, or as its TypeScript twin).
 *
 * Anyone can send transactions to the escrow contract. An escrow is this transaction's only when
 * every term matches what the API expected: the reference (the transaction's uuid), the buyer, the
 * amount, the dispute window, and how it was funded: a FIXED purchase or direct escrow names its
 * seller and deadline at funding; a bounty is funded without a seller and gets the one the API
 * assigns. Token, fee and arbiter are the contract's own. Anything else is a foreign escrow: the
 * transaction stays PENDING, and nothing (state, timeline, review, notification) ever cites it.
 *
 * A bounty's seller on chain may differ from the row's while the money can only go back to the
 * poster: an assignment on its way (the row names the new seller first), or a lapsed claim the
 * keeper re-opened. Once that seller delivers (or the escrow is released or disputed) with
 * another seller than the row's, the escrow is foreign.
 */

/** The chain.escrow columns the rule reads. */
export interface EscrowTermColumns {
  uuid: SQLWrapper;
  buyer: SQLWrapper;
  seller: SQLWrapper;
  amount: SQLWrapper;
  deadline: SQLWrapper;
  disputeWindow: SQLWrapper;
  deliveredAt: SQLWrapper;
  status: SQLWrapper;
  isBounty: SQLWrapper;
}

/** What the API expected of the transaction's escrow, as SQL expressions of the reading query. */
export interface ExpectedTermColumns {
  /** app.transactions.id */
  transactionId: SQLWrapper;
  amountWei: SQLWrapper;
  /** app.transactions.deadline (timestamptz, whole seconds) */
  deadline: SQLWrapper;
  disputeWindowSeconds: SQLWrapper;
  /** The buyer agent's wallet_address. */
  buyerWallet: SQLWrapper;
  /** The seller agent's wallet_address; null while a bounty has none. */
  sellerWallet: SQLWrapper;
  /** Whether the transaction is a bounty's reward (funded without a seller). */
  isBounty: SQLWrapper;
}

/** The escrow columns of a raw SQL query's chain.escrow alias (`e.buyer`, ...). */
export function escrowColumnsOf(alias: string): EscrowTermColumns {
  const column = (name: string) => sql.raw(`${alias}.${name}`);
  return {
    uuid: column("uuid"),
    buyer: column("buyer"),
    seller: column("seller"),
    amount: column("amount"),
    deadline: column("deadline"),
    disputeWindow: column("dispute_window"),
    deliveredAt: column("delivered_at"),
    status: column("status"),
    isBounty: column("is_bounty"),
  };
}

/**
 * What a raw SQL query's aliases expected: `t` of app.transactions, `buyer` and `seller` of
 * app.agents (the seller left-joined: null while a bounty has none).
 */
export function expectedTermsOf(t: string, buyer: string, seller: string): ExpectedTermColumns {
  return {
    transactionId: sql.raw(`${t}.id`),
    amountWei: sql.raw(`${t}.amount_wei`),
    deadline: sql.raw(`${t}.deadline`),
    disputeWindowSeconds: sql.raw(`${t}.dispute_window_seconds`),
    buyerWallet: sql.raw(`${buyer}.wallet_address`),
    sellerWallet: sql.raw(`${seller}.wallet_address`),
    isBounty: isBountyTransactionSql(sql.raw(`${t}.listing_id`)),
  };
}

/** Whether the transaction whose listing is `listingId` is a bounty's reward. */
export function isBountyTransactionSql(listingId: SQLWrapper): SQL {
  return sql`EXISTS (SELECT 1 FROM app.listings bounty_listing
    WHERE bounty_listing.id = ${listingId} AND bounty_listing.listing_type = 'BOUNTY')`;
}

/** The rule as a SQL condition: true when `e` is the transaction's escrow. */
export function escrowMatchesSql(e: EscrowTermColumns, x: ExpectedTermColumns): SQL {
  const deadlineMatches = sql`${e.deadline} = extract(epoch FROM ${x.deadline})`;
  const namedSeller = sql`${e.seller} = lower(${x.sellerWallet})`;
  const openAsFunded = sql`(${e.seller} = ${zeroAddress} AND ${x.sellerWallet} IS NULL)`;
  return sql`(${e.uuid} = ${x.transactionId}::text
    AND ${e.buyer} = lower(${x.buyerWallet})
    AND ${e.amount} = ${x.amountWei}
    AND ${e.disputeWindow} = ${x.disputeWindowSeconds}
    AND CASE WHEN ${x.isBounty}
      THEN ${e.isBounty} AND (
        (${namedSeller} AND ${deadlineMatches})
        OR (${openAsFunded} AND ${deadlineMatches})
        OR (${e.deliveredAt} = 0 AND ${e.status} IN ('FUNDED', 'REFUNDED') AND NOT ${openAsFunded}))
      ELSE NOT ${e.isBounty} AND ${namedSeller} AND ${deadlineMatches}
    END)`;
}

/** An indexed escrow's terms as the TypeScript twin reads them (numbers as strings, as the view gives them). */
export interface IndexedEscrowForMatch extends Omit<IndexedEscrowTerms, "feeBps"> {
  uuid: string | null;
  status: EscrowState;
  isBounty: boolean;
}

/** What the API expected, as the TypeScript twin reads it. */
export interface ExpectedTerms {
  transactionId: string;
  amountWei: string;
  deadline: Date;
  disputeWindowSeconds: number;
  buyerWallet: string;
  sellerWallet: string | null;
  isBounty: boolean;
}

/** The rule in TypeScript: {@link escrowMatchesSql}'s twin (sql-twins.test.ts checks they agree). */
export function escrowMatches(e: IndexedEscrowForMatch, x: ExpectedTerms): boolean {
  const seconds = x.deadline.getTime() / 1000;
  const deadlineMatches = Number.isInteger(seconds) && BigInt(e.deadline) === BigInt(seconds);
  const seller = e.seller.toLowerCase();
  const namedSeller = x.sellerWallet !== null && seller === x.sellerWallet.toLowerCase();
  const openAsFunded = seller === zeroAddress && x.sellerWallet === null;
  const common =
    e.uuid === x.transactionId &&
    e.buyer.toLowerCase() === x.buyerWallet.toLowerCase() &&
    BigInt(e.amount) === BigInt(x.amountWei) &&
    e.disputeWindow === x.disputeWindowSeconds;
  if (!common) return false;
  if (!x.isBounty) return !e.isBounty && namedSeller && deadlineMatches;
  if (!e.isBounty) return false;
  return (
    (namedSeller && deadlineMatches) ||
    (openAsFunded && deadlineMatches) ||
    (BigInt(e.deliveredAt) === 0n && (e.status === "FUNDED" || e.status === "REFUNDED") && !openAsFunded)
  );
}
