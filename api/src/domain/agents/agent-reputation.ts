import { indexedBlock } from "@agent-marketplace/indexer";
import { and, eq, or } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { type Address, getAddress } from "viem";
import { agents, transactions } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { IndexerBehindError, notFound } from "../shared/errors.ts";
import { type ReputationTier, reputationTier, successFigures, type TrackRecord } from "../shared/reputation.ts";
import { isBountyTransactionSql } from "../transactions/escrow-match.ts";
import { recordsOf } from "./agent-records.ts";
import { type AgentTransaction, escrowsFromLogs, trackRecordOfEscrows } from "./reputation-from-logs.ts";

/*
 * An agent's reputation from its kept record (its transactions' escrows as indexed, see
 * agent-records.ts), and its verification: the same figures recomputed from the escrow contract's
 * logs up to the block the indexer has reached, under the same rule, field by field.
 */

/** A reputation as the API answers it. */
export interface ReputationFigures {
  completed_transactions: number;
  refunded: number;
  disputed: number;
  total_volume_wei: string;
  /** 0 to 1; 0 with rated_deals 0 (no rate yet). */
  success_rate: number;
  rated_deals: number;
  reputation_tier: ReputationTier;
}

export interface ReputationVerification {
  wallet: Address;
  /** Both figures are as of this block. */
  block: bigint;
  indexed: ReputationFigures;
  chain: ReputationFigures;
  /** Fields whose values differ. */
  mismatches: (keyof ReputationFigures)[];
}

/** A record's reputation figures, under the rule of shared/reputation.ts. */
export function figuresOf(record: TrackRecord): ReputationFigures {
  const success = successFigures(record);
  return {
    completed_transactions: record.completed,
    refunded: record.refunded,
    disputed: record.disputed,
    total_volume_wei: record.volumeWei.toString(),
    success_rate: success.rate,
    rated_deals: success.ratedDeals,
    reputation_tier: reputationTier(record),
  };
}

export function reputationUseCases(deps: Pick<Deps, "db" | "chain">) {
  const { db, chain } = deps;

  const buyerAgent = alias(agents, "buyer_agent");
  const sellerAgent = alias(agents, "seller_agent");

  /** What the API expected of the escrow of each transaction the agent is the buyer or seller of. */
  async function transactionsOf(agentId: string): Promise<AgentTransaction[]> {
    const rows = await db
      .select({
        transactionId: transactions.id,
        amountWei: transactions.amountWei,
        deadline: transactions.deadline,
        disputeWindowSeconds: transactions.disputeWindowSeconds,
        buyerWallet: buyerAgent.walletAddress,
        sellerWallet: sellerAgent.walletAddress,
        isBounty: isBountyTransactionSql(transactions.listingId).mapWith(Boolean),
        buyerAgentId: transactions.buyerAgentId,
        sellerAgentId: transactions.sellerAgentId,
      })
      .from(transactions)
      .innerJoin(buyerAgent, eq(buyerAgent.id, transactions.buyerAgentId))
      .leftJoin(sellerAgent, eq(sellerAgent.id, transactions.sellerAgentId))
      .where(or(eq(transactions.buyerAgentId, agentId), eq(transactions.sellerAgentId, agentId)));
    return rows;
  }

  /** The checksummed wallet of an active agent; 404 otherwise. */
  async function agentWallet(id: string): Promise<Address> {
    const [agent] = await db
      .select({ wallet: agents.walletAddress })
      .from(agents)
      .where(and(eq(agents.id, id), eq(agents.isActive, true)));
    if (!agent) throw notFound("Agent");
    return getAddress(agent.wallet);
  }

  async function indexedRecord(agentId: string): Promise<TrackRecord> {
    const record = (await recordsOf(db, chain.chainId, [agentId])).get(agentId);
    return record ?? { completed: 0, refunded: 0, disputed: 0, successes: 0, inDispute: 0, volumeWei: 0n };
  }

  return {
    /** An active agent's reputation from its transactions' indexed escrows; 404 for no such agent. */
    async reputation(agentId: string): Promise<{ wallet: Address; figures: ReputationFigures }> {
      const wallet = await agentWallet(agentId);
      return { wallet, figures: figuresOf(await indexedRecord(agentId)) };
    },

    /**
     * The indexed reputation and the one recomputed from every log of the escrow contract up to
     * the block the indexer has reached. 503 while the indexer has no settled block.
     */
    async verify(agentId: string): Promise<ReputationVerification> {
      const wallet = await agentWallet(agentId);
      const query = (text: string) => db.$client.query(text);
      // The indexed figures of one block: read them between two equal readings of the checkpoint.
      let block: bigint | undefined;
      let indexed: TrackRecord | undefined;
      for (let attempt = 0; attempt < 5 && indexed === undefined; attempt++) {
        const before = await indexedBlock(query, chain.chainId);
        const record = await indexedRecord(agentId);
        const after = await indexedBlock(query, chain.chainId);
        if (before !== undefined && before === after) {
          block = before;
          indexed = record;
        }
      }
      if (block === undefined || indexed === undefined) {
        throw new IndexerBehindError("The indexer has no settled block to compare with; retry shortly");
      }
      const escrow = chain.deployment.contracts.AgentEscrow;
      const escrows = await escrowsFromLogs(chain.publicClient, escrow.address, BigInt(escrow.startBlock), block);
      const fromChain = trackRecordOfEscrows(agentId, escrows.values(), await transactionsOf(agentId));
      const indexedFigures = figuresOf(indexed);
      const chainFigures = figuresOf(fromChain);
      const mismatches = (Object.keys(indexedFigures) as (keyof ReputationFigures)[]).filter(
        (key) => indexedFigures[key] !== chainFigures[key],
      );
      return { wallet, block, indexed: indexedFigures, chain: chainFigures, mismatches };
    },
  };
}
