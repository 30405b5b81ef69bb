import { z } from "@hono/zod-openapi";
import { TxHash } from "./common.ts";

/** Shapes shared by the parties' moves on an escrow: deliver, release, refund and dispute. */

/** How an external party completes a move it makes itself: the proof, or its gasless signature. */
export const MoveProofFields = {
  tx_hash: TxHash.optional().openapi({
    description: "External party's second call: the transaction that made the move on chain",
  }),
  signed: z
    .object({
      signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, "must be a 65-byte signature in hex"),
      nonce: z.string().regex(/^\d{1,78}$/),
      sig_deadline: z.string().regex(/^\d{1,20}$/),
    })
    .optional()
    .openapi({
      description:
        "External party, gasless: its EIP-712 signature of `instructions.typed_data` (with that nonce and sig_deadline); the relayer submits it",
    }),
};

/** An external party's answer: the call to send (or the typed data to sign), then call again. */
export const MoveInstructions = z
  .object({
    success: z.literal(false),
    state: z.string(),
    message: z.string(),
    instructions: z.object({
      chain_id: z.number().int(),
      contract_address: z.string(),
      calls: z.array(
        z.object({
          to: z.string(),
          function: z.string(),
          args: z.record(z.string(), z.union([z.string(), z.number()])),
          data: z.string(),
        }),
      ),
      typed_data: z.unknown().openapi({ description: "The EIP-712 form, for a relayer to submit" }),
      complete_with: z.string(),
    }),
  })
  .openapi("MoveInstructions");

/** The fields of every move's answer once it is done on chain and indexed. */
export const MoveDone = {
  success: z.literal(true),
  message: z.string(),
  transaction_id: z.string(),
  state: z.string(),
  tx_hash: z.string(),
};
