import { and, eq } from "drizzle-orm";
import { getAddress, type Hex, zeroAddress } from "viem";
import { agents, transactions } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { listFundedBounty } from "../listings/bounties.ts";
import { bountyMatching } from "../listings/bounty-matching.ts";
import type { ApiPaths } from "../shared/api-paths.ts";
import { badRequest, conflict, forbidden, notFound } from "../shared/errors.ts";
import { type AwaitingApproval, awaitingApproval } from "../wallet/approval-requests.ts";
import type { SpendOrigin } from "../wallet/spending-caps.ts";
import { type EscrowFunding, escrowFunding, type FundingEscrowView, fundingEscrowView } from "./escrow-funding.ts";
import { findTransaction, stateOfRow } from "./transactions.ts";

/*
 * An escrow between two agents without a listing, funded as a purchase is (hosted buyer: at once;
 * external buyer: instructions), and an external buyer's completion of any funding (a direct
 * transaction's, a purchase's or a bounty's) with its tx_hash, or with its EIP-3009 signature for
 * the relayer to submit (gasless).
 */

type Agent = typeof agents.$inferSelect;
type TransactionRecord = typeof transactions.$inferSelect;

export interface FundedTransactionView extends FundingEscrowView {
  state: "FUNDED";
  tx_hash: string;
}

export interface PendingTransactionView extends FundingEscrowView {
  seller_address: string;
  state: "PENDING";
  instructions: ReturnType<EscrowFunding["instructions"]>;
}

export interface CreateTransactionInput {
  /** The caller: the buyer. */
  caller: Agent;
  buyerAgentId: string;
  sellerAgentId: string;
  amountWei: string;
  currency: "USDC";
  description: string;
  deadlineHours: number;
  /** Who asks for a hosted buyer's escrow (domain/wallet/spending-caps.ts): its key by default. */
  origin?: SpendOrigin;
}

export interface ConfirmFundingInput {
  caller: Agent;
  transactionId: string;
  /** Exactly one of txHash (the buyer sent the funding) and authorization (the relayer sends it). */
  txHash?: Hex;
  authorization?: { signature: Hex; validAfter: bigint; validBefore: bigint };
}

export function transactionFunding(
  deps: Pick<Deps, "db" | "config" | "chain" | "escrow" | "relayer" | "indexed" | "readCache" | "logger">,
  paths: ApiPaths,
) {
  const { db, chain } = deps;
  const funding = escrowFunding(deps, paths);
  const matching = bountyMatching(deps, paths);

  /** A direct escrow: the hosted buyer's is funded at once (402 when short), an external one's awaits it. */
  async function create(
    input: CreateTransactionInput,
  ): Promise<FundedTransactionView | PendingTransactionView | AwaitingApproval> {
    const { caller } = input;
    if (input.buyerAgentId !== caller.id) throw forbidden("buyer_agent_id must be the agent of this API key");
    if (input.sellerAgentId === caller.id) throw badRequest("The seller must be another agent");
    const [seller] = await db
      .select()
      .from(agents)
      .where(and(eq(agents.id, input.sellerAgentId), eq(agents.isActive, true)));
    if (!seller) throw notFound("Seller agent");
    if (seller.isPaused) throw conflict("The seller is not taking orders now");
    const row: TransactionRecord = {
      id: crypto.randomUUID(),
      listingId: null,
      buyerAgentId: caller.id,
      sellerAgentId: seller.id,
      amountWei: input.amountWei,
      currency: input.currency,
      description: input.description,
      ...(await funding.schedule(input.deadlineHours)),
      createdAt: new Date(),
      escrowRef: null,
    };
    if (caller.hosted) {
      const funded = await funding.fundHosted(caller, row, seller.walletAddress, {
        action: "transaction",
        request: {
          seller_agent_id: seller.id,
          amount_wei: input.amountWei,
          description: input.description,
          deadline_hours: input.deadlineHours,
        },
        summary: `Escrow ${input.description ? `"${input.description.slice(0, 80)}" ` : ""}for ${seller.name}`,
        origin: input.origin ?? { kind: "agent" },
      });
      if ("approval" in funded) return awaitingApproval(funded.approval);
      return { ...fundingEscrowView(row, caller.walletAddress), state: "FUNDED", tx_hash: funded.txHash };
    }
    await db.insert(transactions).values(row);
    const terms = funding.termsOf(row, caller.walletAddress, seller.walletAddress);
    return {
      ...fundingEscrowView(row, caller.walletAddress),
      seller_address: getAddress(seller.walletAddress),
      state: "PENDING",
      instructions: funding.instructions(
        row,
        terms,
        `POST ${paths.confirmTransaction(row.id)} with { "tx_hash": "<the fund transaction>" }`,
      ),
    };
  }

  /** The buyer completes its funding; answered once indexed. An external poster's bounty is listed then. */
  async function confirm(input: ConfirmFundingInput): Promise<FundedTransactionView> {
    const { caller, transactionId: id } = input;
    const found = await findTransaction(db, chain.chainId, id);
    const row = found.transaction;
    if (row.buyerAgentId !== caller.id) throw forbidden("Only the buyer confirms the funding");
    const state = stateOfRow(found);
    // A tx_hash may arrive after the indexer already shows its funding: the proof is checked instead.
    if (state !== "PENDING" && !input.txHash) {
      throw conflict(`The transaction is ${state}, not PENDING`, { state, transaction_id: id });
    }
    // A bounty is funded without a seller (zero address); its claim names one later.
    let sellerWallet: string = zeroAddress;
    if (row.sellerAgentId) {
      const [seller] = await db.select().from(agents).where(eq(agents.id, row.sellerAgentId));
      if (!seller) throw notFound("Seller agent");
      sellerWallet = seller.walletAddress;
    }
    const terms = funding.termsOf(row, caller.walletAddress, sellerWallet);
    let txHash: string;
    if (input.txHash) {
      await funding.completeWithTxHash(row, terms, input.txHash, caller.id);
      txHash = input.txHash;
    } else {
      if (!input.authorization) throw badRequest("send exactly one of tx_hash and authorization");
      txHash = await funding.completeWithAuthorization(row, terms, input.authorization);
    }
    // An external poster's bounty is listed once its reward is in escrow.
    if (row.listingId && !row.sellerAgentId) {
      const listed = await listFundedBounty(db, row.listingId);
      deps.readCache?.invalidate();
      // Open to hunters now: the agents whose skills match it are told.
      if (listed) await matching.bountyOpened(row.listingId);
    }
    return { ...fundingEscrowView(row, caller.walletAddress), state: "FUNDED", tx_hash: txHash };
  }

  return { create, confirm };
}
export type TransactionFunding = ReturnType<typeof transactionFunding>;
