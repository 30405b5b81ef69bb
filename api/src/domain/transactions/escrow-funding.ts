import { escrowIdOf, escrowRef } from "@agent-marketplace/contracts";
import { and, eq, sql } from "drizzle-orm";
import { getAddress, type Hex, parseSignature, type TransactionReceipt } from "viem";
import { custodialAccount } from "../../chain/custodial-wallet.ts";
import { type FundingAuthorization, type FundingTerms, jsonTypedData } from "../../chain/escrow-actions.ts";
import type { Database } from "../../db/client.ts";
import { type agents, listings, transactions } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import type { ApiPaths } from "../shared/api-paths.ts";
import {
  badRequest,
  EscrowRefusedError,
  InsufficientBalanceError,
  TransactionRevertedError,
} from "../shared/errors.ts";
import { awaitIndexed, transactionWrite } from "../shared/read-your-writes.ts";
import { createSettlement } from "../shared/settlement.ts";
import type { ApprovalView } from "../wallet/approval-requests.ts";
import { balanceReservations, type HeldReservation } from "../wallet/balance-reservations.ts";
import { cappedMoveOf, type MoveAsk } from "../wallet/spending-caps.ts";
import { acceptTxHashOnce } from "./accepted-tx-hashes.ts";
import { escrowIdOfRow } from "./escrow-id.ts";

type Agent = typeof agents.$inferSelect;
type TransactionRow = typeof transactions.$inferSelect;

/** The escrow a transaction is funded into, as the funding answers name it. */
export interface FundingEscrowView {
  transaction_id: string;
  escrow_id: string;
  escrow_id_bytes32: string;
  amount_wei: string;
  currency: "USDC";
  deadline: string;
}

/**
 * The escrow fields every funding answer starts with, from the transaction's row and its buyer's
 * wallet (the escrow's id on chain is derived from the buyer: `escrowIdOf(buyer, ref)`).
 */
export function fundingEscrowView(row: TransactionRow, buyerWallet: string): FundingEscrowView {
  return {
    transaction_id: row.id,
    escrow_id: row.id,
    escrow_id_bytes32: escrowIdOfRow(row, buyerWallet),
    amount_wei: row.amountWei,
    currency: "USDC",
    deadline: row.deadline.toISOString(),
  };
}

/** A FIXED listing's purchase counts once, as its escrow is funded (a bounty is not a purchase). */
export async function countPurchase(
  tx: Pick<Database, "update">,
  row: Pick<TransactionRow, "listingId" | "sellerAgentId">,
): Promise<void> {
  if (!row.listingId || !row.sellerAgentId) return;
  await tx
    .update(listings)
    .set({ timesPurchased: sql`${listings.timesPurchased} + 1` })
    .where(and(eq(listings.id, row.listingId), eq(listings.listingType, "FIXED")));
}

/**
 * Funding an escrow for a transaction row, for every kind of buyer: a hosted buyer's custodial
 * key signs the EIP-3009 authorization and the relayer submits it; an external buyer gets the
 * calls and typed data, then proves its funding with a tx_hash or hands in its signature. Each
 * completion waits until the indexer has the block, so the next read shows FUNDED.
 */
export function escrowFunding(
  deps: Pick<Deps, "db" | "config" | "chain" | "escrow" | "relayer" | "indexed">,
  paths: ApiPaths,
) {
  const { db, config, chain, escrow } = deps;
  const settle = createSettlement(deps);
  const reservations = balanceReservations(deps);

  function termsOf(row: TransactionRow, buyer: string, seller: string): FundingTerms {
    const ref = escrowRef(row.id);
    return {
      ref,
      escrowId: escrowIdOf(getAddress(buyer), ref),
      buyer: getAddress(buyer),
      seller: getAddress(seller),
      amount: BigInt(row.amountWei),
      deadline: Math.floor(row.deadline.getTime() / 1000),
      disputeWindow: row.disputeWindowSeconds,
    };
  }

  /** A new row's deadline and dispute window, from the chain's clock. */
  async function schedule(deadlineHours: number): Promise<Pick<TransactionRow, "deadline" | "disputeWindowSeconds">> {
    const now = await escrow.now();
    return {
      deadline: new Date((now + deadlineHours * 3600) * 1000),
      disputeWindowSeconds: config.disputeWindowSeconds,
    };
  }

  /**
   * Relays a funding signature; `insert` adds the caller's rows in the outbox's database
   * transaction, which ties the buyer's balance reservation `held` to the send.
   */
  async function relay(
    row: TransactionRow,
    terms: FundingTerms,
    authorization: FundingAuthorization,
    held: HeldReservation,
    insert?: boolean,
    alsoRecord?: (tx: Pick<Database, "insert" | "update">) => Promise<void>,
  ): Promise<Hex> {
    const sent = await settle(escrow.relayedFunding(terms, authorization), {
      transactionId: row.id,
      record: async (tx, { txHash }) => {
        await held.attach(tx, txHash);
        if (insert) {
          await alsoRecord?.(tx);
          await tx.insert(transactions).values(row);
        }
        await countPurchase(tx, row);
      },
      refused: async (reason) => {
        const { usdcWei } = await chain.balances(terms.buyer);
        if (usdcWei < terms.amount) {
          return new InsufficientBalanceError(terms.amount, usdcWei, terms.buyer, chain.chainId, escrow.usdc);
        }
        return new EscrowRefusedError(
          `The escrow refused the funding: ${reason}`,
          { transaction_id: row.id },
          "funding_refused",
        );
      },
      reverted: (txHash) =>
        new TransactionRevertedError(
          `The funding transaction ${txHash} reverted`,
          { transaction_id: row.id },
          "funding_reverted",
        ),
      indexed: transactionWrite("Funded", row.id),
    });
    return sent.txHash;
  }

  return {
    termsOf,
    schedule,

    /**
     * Funds a new row from a hosted buyer's wallet; the row (and whatever `alsoRecord` writes) is
     * inserted with the outbox record, so a refused funding leaves nothing behind. 402 when the
     * balance, less what the wallet's other sends in flight reserved, is short, or when `ask`
     * passes one of the buyer's spending caps; above its owner's approval threshold, the approval
     * it waits for, and nothing is sent.
     */
    async fundHosted(
      buyer: Agent,
      row: TransactionRow,
      seller: string,
      ask: MoveAsk,
      alsoRecord?: (tx: Pick<Database, "insert" | "update">) => Promise<void>,
    ): Promise<{ txHash: Hex } | { approval: ApprovalView }> {
      const terms = termsOf(row, buyer.walletAddress, seller);
      const account = custodialAccount(buyer, config.masterKey);
      // The amount is reserved on the wallet before anything is signed: of concurrent spends that
      // do not all fit, the last are refused with the 402 here, never sent to revert on chain.
      const outcome = await reservations.holdCapped(
        { wallet: terms.buyer, amountWei: terms.amount, purpose: "fund" },
        cappedMoveOf(buyer, ask),
        async (held) => relay(row, terms, await escrow.signFunding(account, terms), held, true, alsoRecord),
      );
      return "approval" in outcome ? outcome : { txHash: outcome.sent };
    },

    /** What an external buyer sends (or signs) to fund `row`, and how it completes. */
    instructions(row: TransactionRow, terms: FundingTerms, completeWith: string) {
      // Valid until the escrow's own deadline (on the chain's clock): funding after it fails anyway.
      const validBefore = BigInt(terms.deadline);
      return {
        chain_id: chain.chainId,
        contract_address: escrow.escrow,
        token_address: escrow.usdc,
        calls: escrow.fundingCalls(terms),
        complete_with: completeWith,
        gasless: {
          typed_data: jsonTypedData(escrow.fundingTypedData(terms, validBefore)),
          complete_with: `POST ${paths.confirmTransaction(row.id)} with { "authorization": { "signature": "<the buyer's signature>", "valid_after": "0", "valid_before": "${validBefore}" } }`,
        },
      };
    },

    /**
     * An external buyer's proof: verified against the receipt and the Funded event, accepted once.
     * `fetched`: the receipt of `txHash` when the caller already read it (it is not read again).
     */
    async completeWithTxHash(
      row: TransactionRow,
      terms: FundingTerms,
      txHash: Hex,
      agentId: string,
      fetched?: TransactionReceipt,
    ): Promise<void> {
      const receipt = fetched
        ? escrow.verifyFundingReceipt(fetched, terms, txHash)
        : await escrow.verifyFunding(txHash, terms);
      await acceptTxHashOnce(db, {
        txHash,
        chainId: chain.chainId,
        purpose: "fund",
        transactionId: row.id,
        agentId,
      });
      await countPurchase(db, row);
      await awaitIndexed(deps.indexed, receipt.blockNumber, transactionWrite("Funded", row.id));
    },

    /** An external buyer's EIP-3009 signature, submitted by the relayer (gasless for the buyer). */
    completeWithAuthorization(row: TransactionRow, terms: FundingTerms, authorization: FundingAuthorization) {
      try {
        parseSignature(authorization.signature);
      } catch {
        throw badRequest("authorization.signature is not a valid ECDSA signature (r, s, v)");
      }
      // Reserved as a hosted wallet's funding is: the relayer sends nothing the buyer cannot pay
      // (unless the buyer spends from its own wallet meanwhile, which no check here can see).
      return reservations.hold({ wallet: terms.buyer, amountWei: terms.amount, purpose: "fund" }, (held) =>
        relay(row, terms, authorization, held),
      );
    },
  };
}

export type EscrowFunding = ReturnType<typeof escrowFunding>;
