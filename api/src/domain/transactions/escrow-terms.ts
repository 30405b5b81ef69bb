import type { EscrowTerms } from "@agent-marketplace/contracts";
import { getAddress } from "viem";

/** An escrow as the indexer's `chain.escrow` view gives it (numbers as numeric strings). */
export interface IndexedEscrowTerms {
  buyer: string;
  seller: string;
  amount: string;
  deadline: string;
  disputeWindow: number;
  deliveredAt: string;
  feeBps: number;
}

/** The terms every escrow call takes back, rebuilt from the indexed row (no chain read). */
export function termsOfEscrow(escrow: IndexedEscrowTerms): EscrowTerms {
  return {
    buyer: getAddress(escrow.buyer),
    seller: getAddress(escrow.seller),
    amount: BigInt(escrow.amount),
    deadline: Number(escrow.deadline),
    disputeWindow: escrow.disputeWindow,
    deliveredAt: Number(escrow.deliveredAt),
    feeBps: escrow.feeBps,
  };
}
