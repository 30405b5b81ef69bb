import type { GetTransactionReturnType } from "@agent-marketplace/sdk";
import { Link } from "wouter";
import { formatFeeBps, priceSplit } from "../lib/fees.ts";
import { useFeeBps } from "../lib/platform-info.ts";
import { formatShare, stateWords } from "../lib/transaction-words.ts";
import { Time } from "./time.tsx";
import { exactFigures, Usdc } from "./usdc.tsx";

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
        <dd data-testid="transaction-state">{stateWords(transaction)}</dd>
        <dt>Price</dt>
        <dd data-testid="transaction-price">
          <Usdc wei={transaction.amount_wei} />
        </dd>
        <MoneyFacts transaction={transaction} />
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
      </dl>
      <details className="facts-details on-chain">
        <summary>On chain</summary>
        <dl className="facts">
          <dt>Escrow id</dt>
          <dd>
            <code>{transaction.escrow_id_bytes32}</code>
          </dd>
          <dt>Escrow contract</dt>
          <dd>
            <code>{transaction.contract_address}</code> (chain {transaction.chain_id})
          </dd>
          {transaction.funding_tx_hash && (
            <>
              <dt>Funded by</dt>
              <dd>
                <code>{transaction.funding_tx_hash}</code>
              </dd>
            </>
          )}
          {transaction.tx_hash && transaction.tx_hash !== transaction.funding_tx_hash && (
            <>
              <dt>Latest step</dt>
              <dd>
                <code>{transaction.tx_hash}</code>
              </dd>
            </>
          )}
        </dl>
      </details>
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
            Seller's share {formatShare(transaction.resolution.seller_bps)}: the seller received{" "}
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

/**
 * The platform fee and what the seller receives: paid, once settled (by the ruling's figures when
 * ruled); before, what a release of the whole price pays, at the escrow's own fee (the current
 * platform fee while nothing is paid in).
 */
function MoneyFacts({ transaction }: { transaction: Transaction }) {
  const platformFeeBps = useFeeBps();
  const { state, resolution } = transaction;
  if (resolution) {
    return (
      <>
        <dt>Platform fee</dt>
        <dd data-testid="transaction-fee">
          <Usdc wei={resolution.fee_wei} />
        </dd>
        <dt>The seller received</dt>
        <dd data-testid="seller-receives">
          <Usdc wei={resolution.seller_received_wei} />
        </dd>
        <dt>The buyer got back</dt>
        <dd data-testid="buyer-got-back">
          <Usdc wei={resolution.buyer_refunded_wei} />
        </dd>
        <ExactFacts
          figures={[
            { label: "platform fee", wei: resolution.fee_wei },
            { label: "the seller", wei: resolution.seller_received_wei },
            { label: "the buyer", wei: resolution.buyer_refunded_wei },
          ]}
        />
      </>
    );
  }
  if (state === "REFUNDED") {
    return (
      <>
        <dt>Platform fee</dt>
        <dd data-testid="transaction-fee">none on a refund</dd>
        <dt>The buyer got back</dt>
        <dd data-testid="buyer-got-back">
          <Usdc wei={transaction.amount_wei} />
        </dd>
      </>
    );
  }
  const feeBps = transaction.fee_bps ?? platformFeeBps;
  if (feeBps === undefined) return null;
  const split = priceSplit(transaction.amount_wei, feeBps);
  const feeWei = transaction.fee_wei ?? split.feeWei;
  const sellerWei = transaction.seller_receives_wei ?? split.sellerWei;
  return (
    <>
      <dt>Platform fee ({formatFeeBps(feeBps)})</dt>
      <dd data-testid="transaction-fee">
        <Usdc wei={feeWei} />
      </dd>
      <dt>{state === "RELEASED" ? "The seller received" : "The seller receives on release"}</dt>
      <dd data-testid="seller-receives">
        <Usdc wei={sellerWei} />
      </dd>
      <ExactFacts
        figures={[
          { label: "platform fee", wei: feeWei },
          { label: "the seller", wei: sellerWei },
        ]}
      />
    </>
  );
}

/** The fee split's figures exactly, as a fact of their own, when two decimals round one of them down. */
function ExactFacts({ figures }: { figures: { label: string; wei: string | bigint }[] }) {
  const exact = exactFigures(figures);
  if (!exact) return null;
  return (
    <>
      <dt>Exactly</dt>
      <dd className="exact-figures" data-testid="exact-figures">
        {exact} <small>(shown above to the cent, rounded down)</small>
      </dd>
    </>
  );
}
