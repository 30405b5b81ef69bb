import { randomBytes } from "node:crypto";
import { type EscrowTerms, escrowIdToBytes32 } from "@agent-marketplace/contracts";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { getAddress, type Hex, keccak256, parseSignature, toBytes } from "viem";
import { requireAgent } from "../auth/require-agent.ts";
import { custodialAccount } from "../chain/custodial-wallet.ts";
import { type EscrowMove, jsonTypedData, type SignedMove } from "../chain/escrow-actions.ts";
import type { Database } from "../db/client.ts";
import { type agents, deliverables } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { acceptTxHashOnce } from "../domain/accepted-tx-hashes.ts";
import { deliverableHash } from "../domain/deliverables.ts";
import {
  badRequest,
  conflict,
  EscrowRefusedError,
  forbidden,
  notFound,
  TransactionRevertedError,
} from "../domain/errors.ts";
import { termsOfEscrow } from "../domain/escrow-terms.ts";
import { isUuid } from "../domain/ids.ts";
import { awaitIndexed, transactionWrite } from "../domain/read-your-writes.ts";
import { createSettlement } from "../domain/settlement.ts";
import type { TransactionState } from "../domain/transaction-state.ts";
import { queryTransactions, stateOfRow, type TransactionRow } from "../domain/transactions.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";
import { idempotency } from "../http/idempotency.ts";
import { ActingAgentId, bearerSecurity, errorResponses, HttpUrl, TxHash } from "../schemas/common.ts";

/*
 * The parties' moves on a funded escrow: deliver (seller), release (buyer), refund (buyer before
 * delivery, or the seller) and dispute (either). A hosted party's custodial key signs the move
 * (EIP-712) and the relayer submits it; an external party gets the exact call (and the typed data
 * of the gasless form) and completes with the `tx_hash` it sent. Every answer waits until the
 * indexer has the move's block, so the next read shows it.
 */

const MAX_DELIVERABLE_CHARS = 100_000;
const MAX_REASON_CHARS = 4_000;

const Proof = {
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

const DeliverBody = z
  .object({
    deliverable: z.string().min(1).max(MAX_DELIVERABLE_CHARS).openapi({ description: "The work, or a link to it" }),
    deliverable_url: HttpUrl.optional().openapi({
      description:
        "A link to the work, kept with the content and shown with it. The on-chain deliverable_hash is keccak256(content) without a link, keccak256(abi.encode(string content, string url)) with one",
    }),
    ...ActingAgentId,
    ...Proof,
  })
  .openapi("DeliverRequest");
const ReleaseBody = z.object({ ...ActingAgentId, ...Proof }).openapi("ReleaseRequest");
const RefundBody = z.object({ ...ActingAgentId, ...Proof }).openapi("RefundRequest");
const DisputeBody = z
  .object({ reason: z.string().trim().min(1).max(MAX_REASON_CHARS), ...ActingAgentId, ...Proof })
  .openapi("DisputeRequest");

const MoveInstructions = z
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

type Instructions = z.infer<typeof MoveInstructions>["instructions"];

const MoveDone = {
  success: z.literal(true),
  message: z.string(),
  transaction_id: z.string(),
  state: z.string(),
  tx_hash: z.string(),
};
const Delivered = z
  .object({
    ...MoveDone,
    delivered_at: z.string(),
    deliverable_hash: z.string(),
    deliverable_url: z.string().nullable(),
    dispute_window_hours: z.number(),
  })
  .openapi("Delivered");
const Released = z.object({ ...MoveDone, seller_received_wei: z.string(), fee_wei: z.string() }).openapi("Released");
const Refunded = z.object({ ...MoveDone, refunded_wei: z.string() }).openapi("Refunded");
const Disputed = z.object({ ...MoveDone }).openapi("Disputed");

type Party = "buyer" | "seller";

interface MoveRule {
  /** Who may make it, and from which states. */
  allowed: { party: Party; states: TransactionState[] }[];
  /** What it commits to on chain. */
  move(body: Record<string, unknown>): EscrowMove;
  pastTense: string;
}

const RULES: Record<"deliver" | "release" | "refund" | "dispute", MoveRule> = {
  deliver: {
    allowed: [{ party: "seller", states: ["FUNDED"] }],
    move: (body) => ({
      action: "deliver",
      deliverableHash: deliverableHash(body.deliverable as string, body.deliverable_url as string | undefined),
    }),
    pastTense: "Delivered",
  },
  release: {
    allowed: [{ party: "buyer", states: ["DELIVERED", "DISPUTED"] }],
    move: () => ({ action: "release" }),
    pastTense: "Released",
  },
  refund: {
    allowed: [
      { party: "buyer", states: ["FUNDED"] },
      { party: "seller", states: ["FUNDED", "DELIVERED", "DISPUTED"] },
    ],
    move: () => ({ action: "refund" }),
    pastTense: "Refunded",
  },
  dispute: {
    allowed: [
      { party: "buyer", states: ["FUNDED", "DELIVERED"] },
      { party: "seller", states: ["FUNDED", "DELIVERED"] },
    ],
    move: (body) => ({ action: "dispute", reasonHash: keccak256(toBytes(body.reason as string)) }),
    pastTense: "Disputed",
  },
};

export function transactionMoveRoutes(deps: Deps) {
  const { db, config, chain, escrow } = deps;
  const settle = createSettlement(deps);
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  for (const name of Object.keys(RULES)) app.use(`/:id/${name}`, requireAgent(db), idempotency(db));

  /** The transaction, its escrow terms and the caller's part in it; 403/404/409 as the rules say. */
  /**
   * `proven`: the caller hands in the tx_hash of the move, which the indexer may already show as
   * made; its event is verified instead of the state.
   */
  async function load(id: string, callerId: string, action: keyof typeof RULES, proven = false) {
    if (!isUuid(id)) throw notFound("Transaction");
    const [row] = await queryTransactions(db, chain.chainId, { id, limit: 1 });
    if (!row) throw notFound("Transaction");
    const { transaction } = row;
    const party: Party | undefined =
      transaction.buyerAgentId === callerId ? "buyer" : transaction.sellerAgentId === callerId ? "seller" : undefined;
    const rule = RULES[action];
    if (!party || !rule.allowed.some((allowed) => allowed.party === party)) {
      throw forbidden(`Only the ${rule.allowed.map((allowed) => allowed.party).join(" or ")} may ${action}`);
    }
    const state = stateOf(row);
    const states = rule.allowed.find((allowed) => allowed.party === party)?.states ?? [];
    if (!row.escrow || (!proven && !states.includes(state))) {
      throw conflict(`Cannot ${action} a ${state} transaction`, { state, transaction_id: id });
    }
    const e = row.escrow;
    const terms = termsOfEscrow(e);
    return { row, party, terms, escrowId: escrowIdToBytes32(id) };
  }

  const stateOf = stateOfRow;

  /**
   * Makes `action` for the caller: hosted → signed and relayed; external → instructions, or the
   * proof `tx_hash` verified. Answers the transaction row as indexed after the move, and its hash.
   */
  async function makeMove(
    callerRow: typeof agents.$inferSelect,
    id: string,
    action: keyof typeof RULES,
    body: Record<string, unknown> & {
      tx_hash?: string;
      signed?: { signature: string; nonce: string; sig_deadline: string };
    },
    /** Stores what the move commits to off chain, once it is accepted (not on a refusal). */
    keep?: (tx: Pick<Database, "insert">) => Promise<void>,
  ): Promise<
    | { done: true; row: TransactionRow; txHash: string }
    | { done: false; instructions: Instructions; state: TransactionState }
  > {
    if (body.tx_hash && body.signed) throw badRequest("Send tx_hash or signed, not both");
    const { row, terms, escrowId } = await load(id, callerRow.id, action, body.tx_hash !== undefined);
    const move = RULES[action].move(body);

    if (body.tx_hash) {
      const receipt = await escrow.verifyMove(body.tx_hash as Hex, escrowId, move);
      await acceptTxHashOnce(db, {
        txHash: body.tx_hash,
        chainId: chain.chainId,
        purpose: action,
        transactionId: id,
        agentId: callerRow.id,
      });
      await keep?.(db);
      await awaitIndexed(deps.indexed, receipt.blockNumber, transactionWrite("Done", id));
      return { done: true, row: await rowOf(id), txHash: body.tx_hash };
    }

    if (body.signed) {
      if (callerRow.hosted) throw badRequest("Hosted agents' moves are signed by the service; send no signature");
      try {
        parseSignature(body.signed.signature as Hex);
      } catch {
        throw badRequest("signed.signature is not a valid ECDSA signature (r, s, v)");
      }
      const signed = {
        signer: getAddress(callerRow.walletAddress),
        nonce: BigInt(body.signed.nonce),
        sigDeadline: BigInt(body.signed.sig_deadline),
        signature: body.signed.signature as Hex,
      };
      return relayed(id, action, escrowId, terms, move, signed, row, keep);
    }

    if (!callerRow.hosted) {
      await keep?.(db);
      const sigDeadline = BigInt((await escrow.now()) + 3600);
      // Unordered nonces: a random one, so the signature is never refused as used.
      const nonce = BigInt(`0x${randomBytes(31).toString("hex")}`);
      return {
        done: false,
        state: stateOf(row),
        instructions: {
          chain_id: chain.chainId,
          contract_address: escrow.escrow,
          calls: [escrow.moveCall(escrowId, terms, move)],
          typed_data: jsonTypedData(escrow.moveTypedData(escrowId, move, nonce, sigDeadline)),
          complete_with: `POST /api/transactions/${id}/${action} again with the same body and { "tx_hash": "<your transaction>" }, or gasless with { "signed": { "signature", "nonce": "${nonce}", "sig_deadline": "${sigDeadline}" } }`,
        },
      };
    }

    const account = custodialAccount(callerRow, config.masterKey);
    return relayed(id, action, escrowId, terms, move, await escrow.signMove(account, escrowId, move), row, keep);
  }

  /** The relayer submits a signed move (the service's or an external party's); answered once indexed. */
  async function relayed(
    id: string,
    action: keyof typeof RULES,
    escrowId: Hex,
    terms: EscrowTerms,
    move: EscrowMove,
    signed: SignedMove,
    row: TransactionRow,
    keep?: (tx: Pick<Database, "insert">) => Promise<void>,
  ): Promise<{ done: true; row: TransactionRow; txHash: string }> {
    const sent = await settle(escrow.relayedMove(escrowId, terms, move, signed), {
      transactionId: id,
      record: keep && ((tx) => keep(tx)),
      refused: (reason) =>
        new EscrowRefusedError(`The escrow refused to ${action}: ${reason}`, {
          state: stateOf(row),
          transaction_id: id,
        }),
      reverted: (txHash) =>
        new TransactionRevertedError(
          `The ${action} transaction ${txHash} reverted`,
          { transaction_id: id },
          "move_reverted",
        ),
      indexed: transactionWrite("Done", id),
    });
    return { done: true, row: await rowOf(id), txHash: sent.txHash };
  }

  async function rowOf(id: string): Promise<TransactionRow> {
    const [row] = await queryTransactions(db, chain.chainId, { id, limit: 1 });
    if (!row) throw notFound("Transaction");
    return row;
  }

  const pending = (result: { instructions: Instructions; state: TransactionState }, action: string) => ({
    success: false as const,
    state: result.state,
    message: `Send the call below from your wallet (or have the typed data signed and relayed), then POST /${action} again with tx_hash`,
    instructions: result.instructions,
  });

  const route = <A extends keyof typeof RULES, S extends z.ZodTypeAny, R extends z.ZodTypeAny>(
    action: A,
    summary: string,
    body: S,
    done: R,
  ) =>
    createRoute({
      method: "post",
      path: `/{id}/${action}` as `/{id}/${A}`,
      tags: ["Transactions"],
      summary,
      security: bearerSecurity,
      request: {
        params: z.object({ id: z.string().openapi({ format: "uuid" }) }),
        body: {
          content: { "application/json": { schema: body } },
          required: action !== "release" && action !== "refund",
        },
      },
      responses: {
        200: { description: "Done on chain and indexed", content: { "application/json": { schema: done } } },
        202: {
          description: "External party: the call to send, then call again with tx_hash",
          content: { "application/json": { schema: MoveInstructions } },
        },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    });

  app.openapi(route("deliver", "Deliver the work (seller)", DeliverBody, Delivered), async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const caller = c.get("agent").row;
    const hash = deliverableHash(body.deliverable, body.deliverable_url);
    const result = await makeMove(caller, id, "deliver", body, async (tx) => {
      await tx
        .insert(deliverables)
        .values({ transactionId: id, hash, content: body.deliverable, url: body.deliverable_url })
        .onConflictDoNothing();
    });
    if (!result.done) return c.json(pending(result, "deliver"), 202);
    const e = result.row.escrow;
    return c.json(
      {
        success: true as const,
        message: "Delivered. The buyer may release, or dispute within the dispute window.",
        transaction_id: id,
        state: stateOf(result.row),
        tx_hash: result.txHash,
        delivered_at: new Date(Number(e?.deliveredAt ?? 0) * 1000).toISOString(),
        deliverable_hash: e?.deliverableHash ?? hash,
        deliverable_url: body.deliverable_url ?? null,
        dispute_window_hours: (e?.disputeWindow ?? 0) / 3600,
      },
      200,
    );
  });

  app.openapi(route("release", "Release the payment to the seller (buyer)", ReleaseBody, Released), async (c) => {
    const { id } = c.req.valid("param");
    const body = (c.req.valid("json") ?? {}) as z.infer<typeof ReleaseBody>;
    const result = await makeMove(c.get("agent").row, id, "release", body);
    if (!result.done) return c.json(pending(result, "release"), 202);
    const e = result.row.escrow;
    return c.json(
      {
        success: true as const,
        message: "Released: the seller was paid, less the platform fee.",
        transaction_id: id,
        state: stateOf(result.row),
        tx_hash: result.txHash,
        seller_received_wei: e?.sellerPayout ?? "0",
        fee_wei: e?.feePaid ?? "0",
      },
      200,
    );
  });

  app.openapi(route("refund", "Refund the buyer", RefundBody, Refunded), async (c) => {
    const { id } = c.req.valid("param");
    const body = (c.req.valid("json") ?? {}) as z.infer<typeof RefundBody>;
    const result = await makeMove(c.get("agent").row, id, "refund", body);
    if (!result.done) return c.json(pending(result, "refund"), 202);
    const e = result.row.escrow;
    return c.json(
      {
        success: true as const,
        message: "Refunded: the whole amount went back to the buyer.",
        transaction_id: id,
        state: stateOf(result.row),
        tx_hash: result.txHash,
        refunded_wei: e?.buyerPayout ?? "0",
      },
      200,
    );
  });

  app.openapi(route("dispute", "Open a dispute (either party)", DisputeBody, Disputed), async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const result = await makeMove(c.get("agent").row, id, "dispute", body);
    if (!result.done) return c.json(pending(result, "dispute"), 202);
    return c.json(
      {
        success: true as const,
        message: "Disputed: the arbiter will settle it. Add evidence while it is open.",
        transaction_id: id,
        state: stateOf(result.row),
        tx_hash: result.txHash,
      },
      200,
    );
  });

  return app;
}
