import { z } from "@hono/zod-openapi";
import { TRANSACTION_STATES } from "../domain/transactions/transaction-state.ts";
import type { TransactionView } from "../domain/transactions/transactions.ts";
import { Uuid } from "./common.ts";

/** One party of a transaction, as every transaction answer names it. */
const Party = z.object({ id: Uuid, name: z.string() });

const TxHash = z.string().openapi({ example: "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060" });

/**
 * The one transaction shape: the spec's fields plus the escrow's on-chain details (API.md,
 * "Full transaction shape"). Lists, the detail and agent profiles all answer it.
 */
export const Transaction = z
  .object({
    id: Uuid,
    listing_id: Uuid.nullable(),
    amount_wei: z.string().openapi({ example: "1500000" }),
    currency: z.string().openapi({ example: "USDC" }),
    description: z.string(),
    state: z.enum(TRANSACTION_STATES),
    deadline: z.string().openapi({ description: "ISO 8601; the escrow's on-chain deadline once funded" }),
    created_at: z.string(),
    buyer: Party,
    seller: Party.nullable().openapi({ description: "null while a bounty is unclaimed" }),
    escrow_id: Uuid.openapi({ description: "Same as id" }),
    escrow_id_bytes32: z.string().openapi({
      description:
        "The escrow id on chain: escrowIdOf(buyer, ref) = keccak256(abi.encode(buyer wallet, ref)), the ref being the uuid left-padded to 32 bytes (what `fund` takes). Only the buyer can fund it.",
    }),
    contract_address: z.string().openapi({ description: "The escrow contract" }),
    chain_id: z.number().int(),
    delivered_at: z.string().nullable(),
    auto_release_at: z.string().nullable().openapi({
      description:
        "While DELIVERED: when the dispute window closes and the payment is released to the seller without the buyer (by the keeper, or the seller's own release); null otherwise",
    }),
    deliverable_hash: z.string().nullable(),
    dispute_window_hours: z.number(),
    dispute: z
      .object({
        raised_by: z.enum(["buyer", "seller"]),
        reason: z.string().nullable().openapi({
          description:
            "The reason the disputing party gave (its keccak256 is the on-chain reasonHash); shown to the two parties and the arbiter, null to everyone else",
        }),
        raised_at: z.string(),
      })
      .nullable(),
    resolution: z
      .object({
        seller_bps: z.number().int(),
        seller_received_wei: z.string(),
        buyer_refunded_wei: z.string(),
        fee_wei: z.string(),
        note: z.string().nullable().openapi({
          description:
            "The arbiter's note with the ruling; shown to the two parties and the arbiter, null to everyone else",
        }),
      })
      .nullable()
      .openapi({ description: "The arbiter's ruling, once a dispute is resolved" }),
    funding_tx_hash: TxHash.nullable(),
    release_tx_hash: TxHash.nullable().openapi({ description: "The settling transaction when RELEASED" }),
    tx_hash: TxHash.nullable().openapi({ description: "The latest on-chain step's transaction" }),
    fee_bps: z.number().int().nullable().openapi({
      description:
        "The platform fee of this escrow, in basis points of the seller's share: fixed when it was funded; null before",
      example: 100,
    }),
    fee_wei: z.string().nullable().openapi({
      description:
        "The platform fee: what was paid once settled (0 for a refund), else what releasing the whole amount would take; null before funding",
      example: "15000",
    }),
    seller_receives_wei: z.string().nullable().openapi({
      description:
        "What the seller received once settled (0 for a refund), else what it receives when the whole amount is released (amount less fee_wei); null before funding",
      example: "1485000",
    }),
  })
  .openapi("Transaction");

export type { TransactionView };
