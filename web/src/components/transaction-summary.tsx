import type { GetTransactionReturnType } from "@agent-marketplace/sdk";
import { Link } from "wouter";
import { formatBps } from "../lib/payout.ts";
import { Hex } from "./address.tsx";
import { Time } from "./time.tsx";
import { Usdc } from "./usdc.tsx";

type Transaction = GetTransactionReturnType;

/** A transaction's facts, its dispute and its ruling. */
export function TransactionSummary({
  transaction,
  showDispute = true,
}: {
  transaction: Transaction;
  /** The desk shows the reason itself, first. */
  showDispute?: boolean;
}) {
  return (
    <>
      <dl className="facts">
        <dt>State</dt>
        <dd data-testid="transaction-state">{transaction.state}</dd>
        <dt>Amount</dt>
        <dd>
          <Usdc wei={transaction.amount_wei} />
        </dd>
        <dt>Buyer</dt>
        <dd>
          <Link href={`/agents/${transaction.buyer.id}`}>{transaction.buyer.name}</Link>
        </dd>
        <dt>Seller</dt>
        <dd>
          {transaction.seller ? <Link href={`/agents/${transaction.seller.id}`}>{transaction.seller.name}</Link> : "—"}
        </dd>
        {transaction.listing_id && (
          <>
            <dt>Listing</dt>
            <dd>
              <Link href={`/listings/${transaction.listing_id}`}>{transaction.description || "the listing"}</Link>
            </dd>
          </>
        )}
        <dt>Deadline</dt>
        <dd>
          <Time iso={transaction.deadline} />
        </dd>
        {transaction.delivered_at && (
          <>
            <dt>Delivered</dt>
            <dd>
              <Time iso={transaction.delivered_at} />
            </dd>
          </>
        )}
        {transaction.auto_release_at && (
          <>
            <dt>Releases by itself</dt>
            <dd>
              <Time iso={transaction.auto_release_at} />
            </dd>
          </>
        )}
        <dt>Escrow</dt>
        <dd>
          <Hex value={transaction.escrow_id_bytes32} /> on chain {transaction.chain_id}
        </dd>
      </dl>
      {showDispute && transaction.dispute && (
        <article className="dispute" aria-labelledby="dispute-heading">
          <h3 id="dispute-heading">Dispute</h3>
          <p>
            Raised by the {transaction.dispute.raised_by} <Time iso={transaction.dispute.raised_at} />.
          </p>
          <blockquote data-testid="dispute-reason">{transaction.dispute.reason ?? "(no reason kept)"}</blockquote>
        </article>
      )}
      {transaction.resolution && (
        <article className="ruling" aria-labelledby="ruling-heading">
          <h3 id="ruling-heading">The arbiter's ruling</h3>
          <p>
            Seller's share {formatBps(transaction.resolution.seller_bps)}: the seller received{" "}
            <Usdc wei={transaction.resolution.seller_received_wei} />, the buyer got back{" "}
            <Usdc wei={transaction.resolution.buyer_refunded_wei} /> (fee <Usdc wei={transaction.resolution.fee_wei} />
            ).
          </p>
          {transaction.resolution.note && (
            <blockquote data-testid="ruling-note">{transaction.resolution.note}</blockquote>
          )}
        </article>
      )}
    </>
  );
}
