import { escrowIdToBytes32 } from "@agent-marketplace/contracts";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { getAddress, type Hex, zeroAddress } from "viem";
import { requireAgent } from "../auth/require-agent.ts";
import { agents, transactions } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { listFundedBounty } from "../domain/bounties.ts";
import { badRequest, conflict, forbidden, notFound } from "../domain/errors.ts";
import { escrowFunding } from "../domain/escrow-funding.ts";
import { isUuid } from "../domain/ids.ts";
import { queryTransactions, stateOfRow } from "../domain/transactions.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";
import { idempotency } from "../http/idempotency.ts";
import { bearerSecurity, errorResponses, PositiveWei, TxHash, Uuid } from "../schemas/common.ts";
import { FundingInstructions, InsufficientBalance } from "../schemas/funding.ts";

/*
 * POST /api/transactions: an escrow between two agents without a listing, funded as a purchase
 * is (hosted buyer: at once; external buyer: instructions). POST /api/transactions/{id}/confirm:
 * an external buyer completes the funding with its tx_hash, or with its EIP-3009 signature for
 * the relayer to submit (gasless).
 */

/** Escrow amounts are uint128 on chain. */
const MAX_ESCROW_WEI = 2n ** 128n - 1n;

const CreateBody = z
  .object({
    buyer_agent_id: Uuid.openapi({ description: "The caller's agent: the buyer" }),
    seller_agent_id: Uuid,
    amount_wei: PositiveWei.refine((value) => !/^\d+$/.test(value) || BigInt(value) <= MAX_ESCROW_WEI, {
      message: "must be at most 2^128 - 1",
    }),
    currency: z.literal("USDC").default("USDC"),
    description: z.string().max(2_000).default(""),
    deadline_hours: z.number().int().min(1).max(720).default(72),
  })
  .openapi("CreateTransactionRequest");

const ConfirmBody = z
  .object({
    tx_hash: TxHash.optional(),
    authorization: z
      .object({
        signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, "must be a 65-byte signature in hex"),
        valid_after: z.string().regex(/^\d{1,20}$/),
        valid_before: z.string().regex(/^\d{1,20}$/),
      })
      .optional()
      .openapi({ description: "The buyer's EIP-3009 ReceiveWithAuthorization signature (gasless funding)" }),
  })
  .refine((body) => (body.tx_hash === undefined) !== (body.authorization === undefined), {
    message: "send exactly one of tx_hash and authorization",
  })
  .openapi("ConfirmFundingRequest");

const Funded = z
  .object({
    transaction_id: Uuid,
    escrow_id: Uuid,
    escrow_id_bytes32: z.string(),
    amount_wei: z.string(),
    currency: z.literal("USDC"),
    deadline: z.string(),
    state: z.literal("FUNDED"),
    tx_hash: z.string(),
  })
  .openapi("FundedTransaction");

const Pending = z
  .object({
    transaction_id: Uuid,
    escrow_id: Uuid,
    escrow_id_bytes32: z.string(),
    amount_wei: z.string(),
    currency: z.literal("USDC"),
    deadline: z.string(),
    seller_address: z.string(),
    state: z.literal("PENDING"),
    instructions: FundingInstructions,
  })
  .openapi("PendingTransaction");

export function transactionFundingRoutes(deps: Deps) {
  const { db, chain } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const funding = escrowFunding(deps);
  // POST only: GET / (the list, another sub-app) stays public.
  app.on("POST", "/", requireAgent(db), idempotency(db));
  app.use("/:id/confirm", requireAgent(db));

  const common = (row: typeof transactions.$inferSelect) => ({
    transaction_id: row.id,
    escrow_id: row.id,
    escrow_id_bytes32: escrowIdToBytes32(row.id),
    amount_wei: row.amountWei,
    currency: "USDC" as const,
    deadline: row.deadline.toISOString(),
  });

  app.openapi(
    createRoute({
      method: "post",
      path: "/",
      tags: ["Transactions"],
      summary: "Create an escrow between two agents, without a listing",
      security: bearerSecurity,
      request: { body: { content: { "application/json": { schema: CreateBody } }, required: true } },
      responses: {
        201: {
          description: "Hosted buyer: funded. External buyer: PENDING with the funding instructions.",
          content: { "application/json": { schema: z.union([Funded, Pending]) } },
        },
        402: {
          description: "The buyer's balance is short",
          content: { "application/json": { schema: InsufficientBalance } },
        },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const caller = c.get("agent").row;
      if (body.buyer_agent_id !== caller.id) throw forbidden("buyer_agent_id must be the agent of this API key");
      if (body.seller_agent_id === caller.id) throw badRequest("The seller must be another agent");
      const [seller] = await db
        .select()
        .from(agents)
        .where(and(eq(agents.id, body.seller_agent_id), eq(agents.isActive, true)));
      if (!seller) throw notFound("Seller agent");
      if (seller.isPaused) throw conflict("The seller is not taking orders now");
      const row: typeof transactions.$inferSelect = {
        id: crypto.randomUUID(),
        listingId: null,
        buyerAgentId: caller.id,
        sellerAgentId: seller.id,
        amountWei: body.amount_wei,
        currency: body.currency,
        description: body.description,
        ...(await funding.schedule(body.deadline_hours)),
        createdAt: new Date(),
      };
      if (caller.hosted) {
        const txHash = await funding.fundHosted(caller, row, seller.walletAddress);
        return c.json({ ...common(row), state: "FUNDED" as const, tx_hash: txHash }, 201);
      }
      await db.insert(transactions).values(row);
      const terms = funding.termsOf(row, caller.walletAddress, seller.walletAddress);
      return c.json(
        {
          ...common(row),
          seller_address: getAddress(seller.walletAddress),
          state: "PENDING" as const,
          instructions: funding.instructions(
            row,
            terms,
            `POST /api/transactions/${row.id}/confirm with { "tx_hash": "<the fund transaction>" }`,
          ),
        },
        201,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/{id}/confirm",
      tags: ["Transactions"],
      summary: "Confirm an external buyer's funding (tx_hash, or a signature for the relayer)",
      security: bearerSecurity,
      request: {
        params: z.object({ id: z.string().openapi({ format: "uuid" }) }),
        body: { content: { "application/json": { schema: ConfirmBody } }, required: true },
      },
      responses: {
        200: { description: "Funded and indexed", content: { "application/json": { schema: Funded } } },
        402: {
          description: "The buyer's balance is short",
          content: { "application/json": { schema: InsufficientBalance } },
        },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      const caller = c.get("agent").row;
      if (!isUuid(id)) throw notFound("Transaction");
      const [found] = await queryTransactions(db, chain.chainId, { id, limit: 1 });
      if (!found) throw notFound("Transaction");
      const row = found.transaction;
      if (row.buyerAgentId !== caller.id) throw forbidden("Only the buyer confirms the funding");
      const state = stateOfRow(found);
      // A tx_hash may arrive after the indexer already shows its funding: the proof is checked instead.
      if (state !== "PENDING" && !body.tx_hash) {
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
      if (body.tx_hash) {
        await funding.completeWithTxHash(row, terms, body.tx_hash as Hex, caller.id);
        txHash = body.tx_hash;
      } else {
        const authorization = body.authorization as NonNullable<typeof body.authorization>;
        txHash = await funding.completeWithAuthorization(row, terms, {
          signature: authorization.signature as Hex,
          validAfter: BigInt(authorization.valid_after),
          validBefore: BigInt(authorization.valid_before),
        });
      }
      // An external poster's bounty is listed once its reward is in escrow.
      if (row.listingId && !row.sellerAgentId) {
        await listFundedBounty(db, row.listingId);
        deps.readCache?.invalidate();
      }
      return c.json({ ...common(row), state: "FUNDED" as const, tx_hash: txHash }, 200);
    },
  );

  return app;
}
