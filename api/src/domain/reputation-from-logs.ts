import { agentEscrowAbi } from "@agent-marketplace/contracts";
import { type Address, type Hex, type PublicClient, parseEventLogs } from "viem";
import type { TrackRecord } from "./reputation.ts";

/*
 * An agent's track record recomputed from the escrow contract's logs alone, without the indexer:
 * the check behind /reputation/verify. It folds the logs itself (no code shared with the indexer's
 * mapping), counting as recordOf does: an escrow released or resolved counts as completed for each
 * role the address held in it when it settled, refunded and disputed likewise, and the volume is
 * what went to the seller's side (seller amount plus fee).
 */

/** Blocks per eth_getLogs request: public RPC endpoints cap a range near 10,000. */
const LOG_RANGE = 10_000n;

export async function trackRecordFromLogs(
  publicClient: PublicClient,
  escrow: Address,
  address: Address,
  fromBlock: bigint,
  toBlock: bigint,
): Promise<TrackRecord> {
  const me = address.toLowerCase();
  const parties = new Map<Hex, { buyer: string; seller: string }>();
  const record: TrackRecord = { completed: 0, refunded: 0, disputed: 0, volumeWei: 0n };
  /** How many of the escrow's roles (buyer, seller) the address holds: 0, 1 or 2. */
  const rolesIn = (id: Hex): number => {
    const escrowParties = parties.get(id);
    if (!escrowParties) throw new Error(`escrow ${id} has a log before its Funded log`);
    return (escrowParties.buyer === me ? 1 : 0) + (escrowParties.seller === me ? 1 : 0);
  };

  for (let start = fromBlock; start <= toBlock; start += LOG_RANGE) {
    const end = start + LOG_RANGE - 1n < toBlock ? start + LOG_RANGE - 1n : toBlock;
    const raw = await publicClient.getLogs({ address: escrow, fromBlock: start, toBlock: end });
    const logs = parseEventLogs({ abi: agentEscrowAbi, logs: raw, strict: false });
    for (const log of logs) {
      switch (log.eventName) {
        case "Funded": {
          const { escrowId, buyer, seller } = log.args;
          if (escrowId && buyer && seller) {
            parties.set(escrowId, { buyer: buyer.toLowerCase(), seller: seller.toLowerCase() });
          }
          break;
        }
        case "SellerAssigned": {
          const { escrowId, seller } = log.args;
          const escrowParties = escrowId ? parties.get(escrowId) : undefined;
          if (escrowParties && seller) escrowParties.seller = seller.toLowerCase();
          break;
        }
        case "Disputed":
          if (log.args.escrowId) record.disputed += rolesIn(log.args.escrowId);
          break;
        case "Refunded":
          if (log.args.escrowId) record.refunded += rolesIn(log.args.escrowId);
          break;
        case "Released":
        case "Resolved": {
          const { escrowId, sellerAmount, fee } = log.args;
          if (!escrowId) break;
          const roles = rolesIn(escrowId);
          record.completed += roles;
          record.volumeWei += BigInt(roles) * ((sellerAmount ?? 0n) + (fee ?? 0n));
          break;
        }
      }
    }
  }
  return record;
}
