import { agentEscrowAbi, uuidOfEscrowRef } from "@agent-marketplace/contracts";
import { type EscrowState, uuidOfEscrowId } from "@agent-marketplace/indexer";
import { type Address, type Hex, type PublicClient, parseEventLogs, zeroAddress } from "viem";
import { recordOf } from "../reads/track-record.ts";
import type { TrackRecord } from "../shared/reputation.ts";
import { type ExpectedTerms, escrowMatches, type IndexedEscrowForMatch } from "../transactions/escrow-match.ts";
import { recordFiguresOf, type TransactionEscrow } from "./agent-records.ts";

/*
 * An agent's track record recomputed from the escrow contract's logs alone, without the indexer:
 * the check behind /reputation/verify. It folds the logs itself (no code shared with the indexer's
 * mapping) into each escrow's terms and outcome as of the last block read, keeps the escrows that
 * are the agent's transactions' escrows under the rule (escrowMatches, the TypeScript twin of the
 * SQL the kept records are counted with), and counts them as the kept records do
 * (recordFiguresOf): an escrow released or resolved counts as completed for each role the agent
 * holds in its transaction, refunded and disputed likewise, and the volume is what went to the
 * seller's side (seller amount plus fee).
 */

/** Blocks per eth_getLogs request: public RPC endpoints cap a range near 10,000. */
const LOG_RANGE = 10_000n;

/** One escrow as its logs leave it: its terms as the rule reads them, and its outcome. */
export interface EscrowFromLogs extends IndexedEscrowForMatch {
  disputed: boolean;
  sellerPayout: bigint;
  buyerPayout: bigint;
  feePaid: bigint;
}

/** One of the agent's transactions: what the API expected of its escrow, and its agents. */
export interface AgentTransaction extends ExpectedTerms {
  buyerAgentId: string;
  sellerAgentId: string | null;
}

/** Every escrow of the contract `escrow` from `fromBlock` to `toBlock`, by escrow id. */
export async function escrowsFromLogs(
  publicClient: PublicClient,
  escrow: Address,
  fromBlock: bigint,
  toBlock: bigint,
): Promise<Map<Hex, EscrowFromLogs>> {
  const escrows = new Map<Hex, EscrowFromLogs>();
  const escrowOf = (id: Hex | undefined): EscrowFromLogs => {
    const found = id ? escrows.get(id) : undefined;
    if (!found) throw new Error(`escrow ${id} has a log before its Funded log`);
    return found;
  };
  const settle = (id: Hex | undefined, status: EscrowState, payouts: Partial<EscrowFromLogs>) =>
    Object.assign(escrowOf(id), { status, ...payouts });

  for (let start = fromBlock; start <= toBlock; start += LOG_RANGE) {
    const end = start + LOG_RANGE - 1n < toBlock ? start + LOG_RANGE - 1n : toBlock;
    const raw = await publicClient.getLogs({ address: escrow, fromBlock: start, toBlock: end });
    const logs = parseEventLogs({ abi: agentEscrowAbi, logs: raw, strict: false });
    for (const log of logs) {
      switch (log.eventName) {
        case "Funded": {
          const { escrowId, buyer, seller, ref, amount, deadline, disputeWindow } = log.args;
          if (!escrowId || !buyer || !seller || !ref || amount === undefined || deadline === undefined) break;
          const lowerSeller = seller.toLowerCase();
          escrows.set(escrowId, {
            uuid: uuidOf(ref, escrowId),
            buyer: buyer.toLowerCase(),
            seller: lowerSeller,
            amount: amount.toString(),
            deadline: deadline.toString(),
            disputeWindow: Number(disputeWindow ?? 0),
            deliveredAt: "0",
            status: "FUNDED",
            isBounty: lowerSeller === zeroAddress,
            disputed: false,
            sellerPayout: 0n,
            buyerPayout: 0n,
            feePaid: 0n,
          });
          break;
        }
        case "SellerAssigned": {
          const assigned = escrowOf(log.args.escrowId);
          if (log.args.seller) assigned.seller = log.args.seller.toLowerCase();
          if (log.args.deadline !== undefined) assigned.deadline = log.args.deadline.toString();
          break;
        }
        case "Delivered":
          // The logs carry no time: the block number stands for it (the rule asks only whether).
          Object.assign(escrowOf(log.args.escrowId), { status: "DELIVERED", deliveredAt: String(log.blockNumber) });
          break;
        case "Disputed":
          Object.assign(escrowOf(log.args.escrowId), { status: "DISPUTED", disputed: true });
          break;
        case "Released":
          settle(log.args.escrowId, "RELEASED", {
            sellerPayout: log.args.sellerAmount ?? 0n,
            feePaid: log.args.fee ?? 0n,
          });
          break;
        case "Refunded":
          settle(log.args.escrowId, "REFUNDED", { buyerPayout: log.args.amount ?? 0n });
          break;
        case "Resolved":
          settle(log.args.escrowId, "RESOLVED", {
            sellerPayout: log.args.sellerAmount ?? 0n,
            buyerPayout: log.args.buyerAmount ?? 0n,
            feePaid: log.args.fee ?? 0n,
          });
          break;
      }
    }
  }
  return escrows;
}

/**
 * The API's uuid of an escrow: its funding reference's, or for a reference that is no uuid (an
 * x402 payment's nonce) the one the API derives from the escrow's id, as it names that payment's
 * transaction (uuidOfEscrowId: a naming rule, the same for every reader).
 */
function uuidOf(ref: Hex, escrowId: Hex): string {
  try {
    return uuidOfEscrowRef(ref);
  } catch {
    return uuidOfEscrowId(escrowId);
  }
}

/**
 * The track record of `agentId` over `escrows` (escrowsFromLogs): the escrows that are its
 * transactions' escrows (`transactions`, those it is the buyer or seller of), in its role in each.
 */
export function trackRecordOfEscrows(
  agentId: string,
  escrows: Iterable<EscrowFromLogs>,
  transactions: readonly AgentTransaction[],
): TrackRecord {
  const byId = new Map(transactions.map((transaction) => [transaction.transactionId, transaction]));
  const own: TransactionEscrow[] = [];
  for (const escrow of escrows) {
    const transaction = escrow.uuid === null ? undefined : byId.get(escrow.uuid);
    if (!transaction || !escrowMatches(escrow, transaction)) continue;
    const sellerNamed = transaction.sellerWallet !== null && escrow.seller === transaction.sellerWallet.toLowerCase();
    own.push({
      buyerAgentId: transaction.buyerAgentId,
      sellerAgentId: sellerNamed ? transaction.sellerAgentId : null,
      status: escrow.status,
      amount: BigInt(escrow.amount),
      disputed: escrow.disputed,
      sellerPayout: escrow.sellerPayout,
      buyerPayout: escrow.buyerPayout,
      feePaid: escrow.feePaid,
    });
  }
  const { completed, refunded, disputed, successes, inDispute, volumeWei } = recordOf(recordFiguresOf(agentId, own));
  return { completed, refunded, disputed, successes, inDispute, volumeWei };
}
