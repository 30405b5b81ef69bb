import { escrowIdToBytes32 } from "@agent-marketplace/contracts";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, asc, eq, sql } from "drizzle-orm";
import { getAddress } from "viem";
import { apiKeyFromHeader, hashApiKey } from "../auth/api-keys.ts";
import { requireAgent } from "../auth/require-agent.ts";
import { deliverables, evidence } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import {
  conflict,
  EscrowRefusedError,
  forbidden,
  notFound,
  TransactionRevertedError,
  unauthorized,
} from "../domain/errors.ts";
import { termsOfEscrow } from "../domain/escrow-terms.ts";
import { isUuid } from "../domain/ids.ts";
import { transactionWrite } from "../domain/read-your-writes.ts";
import { createSettlement } from "../domain/settlement.ts";
import { queryTransactions, stateOfRow, type TransactionRow } from "../domain/transactions.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";
import { ActingAgentId, bearerSecurity, errorResponses, HttpUrl, Uuid } from "../schemas/common.ts";

/*
 * A transaction's records for its parties: the timeline (on-chain events from the indexer, with
 * their tx hashes, and the off-chain ones), the delivered content, and the evidence of a dispute.
 * And the arbiter's ruling: POST /resolve with the arbiter's key sends `resolve(sellerBps)`.
 */

const IdParam = z.object({ id: z.string().openapi({ format: "uuid" }) });

const EvidenceBody = z
  .object({
    content: z.string().trim().min(1).max(4_000),
    url: HttpUrl.optional(),
    ...ActingAgentId,
  })
  .openapi("EvidenceRequest");

const ResolveBody = z
  .object({
    seller_bps: z.number().int().min(0).max(10_000).openapi({ description: "The seller's share, in basis points" }),
    note: z.string().max(4_000).optional(),
  })
  .openapi("ResolveRequest");

const TimelineEvent = z
  .object({
    at: z.string(),
    source: z.enum(["chain", "api"]),
    kind: z.string(),
    actor: z.string().nullable(),
    tx_hash: z.string().nullable(),
    block_number: z.string().nullable(),
    details: z.record(z.string(), z.union([z.string(), z.number()])),
  })
  .openapi("TimelineEvent");

export function transactionRecordRoutes(deps: Deps) {
  const { db, chain, escrow } = deps;
  const settle = createSettlement(deps);
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  for (const path of ["/:id/timeline", "/:id/deliverable", "/:id/evidence"]) app.use(path, requireAgent(db));

  /** The transaction, if the caller is one of its parties (404 unknown, 403 not a party). */
  async function partyOf(id: string, callerId: string): Promise<TransactionRow> {
    if (!isUuid(id)) throw notFound("Transaction");
    const [row] = await queryTransactions(db, chain.chainId, { id, limit: 1 });
    if (!row) throw notFound("Transaction");
    const { buyerAgentId, sellerAgentId } = row.transaction;
    if (callerId !== buyerAgentId && callerId !== sellerAgentId) throw forbidden("Only the parties see this");
    return row;
  }

  const stateOf = stateOfRow;

  app.openapi(
    createRoute({
      method: "get",
      path: "/{id}/timeline",
      tags: ["Transactions"],
      summary: "Every event of a transaction, on chain and off, in order (parties only)",
      security: bearerSecurity,
      request: { params: IdParam },
      responses: {
        200: {
          description: "The timeline",
          content: {
            "application/json": {
              schema: z.object({ transaction_id: Uuid, state: z.string(), events: z.array(TimelineEvent) }),
            },
          },
        },
        ...errorResponses(401, 403, 404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const row = await partyOf(id, c.get("agent").id);
      const { rows: onChain } = await db.execute<Record<string, string | number | null>>(sql`
        SELECT kind, actor, amount::text AS amount, buyer_amount::text AS buyer_amount, fee::text AS fee,
               seller, data_hash, seller_bps, tx_hash, block_number::text AS block_number,
               block_timestamp::text AS block_timestamp
        FROM chain.escrow_event
        WHERE chain_id = ${chain.chainId} AND escrow_id = ${escrowIdToBytes32(id)}
        ORDER BY block_number, log_index`);
      const [delivered, submitted] = await Promise.all([
        db.select().from(deliverables).where(eq(deliverables.transactionId, id)).orderBy(asc(deliverables.createdAt)),
        db.select().from(evidence).where(eq(evidence.transactionId, id)).orderBy(asc(evidence.createdAt)),
      ]);
      const events: z.infer<typeof TimelineEvent>[] = [
        {
          at: row.transaction.createdAt.toISOString(),
          source: "api" as const,
          kind: "CREATED",
          actor: row.transaction.buyerAgentId,
          tx_hash: null,
          block_number: null,
          details: { amount_wei: row.transaction.amountWei },
        },
        ...onChain.map((event) => ({
          at: new Date(Number(event.block_timestamp) * 1000).toISOString(),
          source: "chain" as const,
          kind: String(event.kind),
          actor: event.actor === null ? null : getAddress(String(event.actor)),
          tx_hash: event.tx_hash === null ? null : String(event.tx_hash),
          block_number: event.block_number === null ? null : String(event.block_number),
          details: Object.fromEntries(
            Object.entries({
              amount_wei: event.amount,
              buyer_amount_wei: event.buyer_amount,
              fee_wei: event.fee,
              seller: event.seller,
              data_hash: event.data_hash,
              seller_bps: event.seller_bps,
            }).filter((entry): entry is [string, string | number] => entry[1] !== null),
          ),
        })),
        ...delivered.map((item) => ({
          at: item.createdAt.toISOString(),
          source: "api" as const,
          kind: "DELIVERABLE_SUBMITTED",
          actor: row.transaction.sellerAgentId,
          tx_hash: null,
          block_number: null,
          details: { deliverable_hash: item.hash, ...(item.url && { deliverable_url: item.url }) },
        })),
        ...submitted.map((item) => ({
          at: item.createdAt.toISOString(),
          source: "api" as const,
          kind: "EVIDENCE",
          actor: item.agentId,
          tx_hash: null,
          block_number: null,
          details: { evidence_id: item.id, content: item.content, ...(item.url && { url: item.url }) },
        })),
      ].sort((a, b) => a.at.localeCompare(b.at));
      return c.json({ transaction_id: id, state: stateOf(row), events }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/{id}/deliverable",
      tags: ["Transactions"],
      summary: "The delivered content and link; together they hash to the on-chain deliverable hash (parties only)",
      description:
        "`deliverable_hash` is keccak256 of the content's UTF-8 bytes when no `deliverable_url` was given, else keccak256(abi.encode(string content, string deliverable_url)).",
      security: bearerSecurity,
      request: { params: IdParam },
      responses: {
        200: {
          description: "The deliverable",
          content: {
            "application/json": {
              schema: z
                .object({
                  transaction_id: Uuid,
                  content: z.string(),
                  deliverable_url: z.string().nullable(),
                  deliverable_hash: z.string(),
                  delivered_at: z.string(),
                })
                .openapi("Deliverable"),
            },
          },
        },
        ...errorResponses(401, 403, 404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const row = await partyOf(id, c.get("agent").id);
      const hash = row.escrow?.deliverableHash;
      if (!hash || row.escrow?.deliveredAt === "0") throw notFound("Deliverable");
      const [item] = await db
        .select()
        .from(deliverables)
        .where(and(eq(deliverables.transactionId, id), eq(deliverables.hash, hash)));
      if (!item) throw notFound("Deliverable (delivered on chain; its content was not submitted to the API)");
      return c.json(
        {
          transaction_id: id,
          content: item.content,
          deliverable_url: item.url,
          deliverable_hash: hash,
          delivered_at: new Date(Number(row.escrow?.deliveredAt) * 1000).toISOString(),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/{id}/evidence",
      tags: ["Transactions"],
      summary: "Add evidence to an open dispute (either party)",
      security: bearerSecurity,
      request: { params: IdParam, body: { content: { "application/json": { schema: EvidenceBody } }, required: true } },
      responses: {
        201: {
          description: "Recorded",
          content: {
            "application/json": {
              schema: z.object({ evidence_id: Uuid, transaction_id: Uuid, created_at: z.string() }).openapi("Evidence"),
            },
          },
        },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      const caller = c.get("agent").id;
      const row = await partyOf(id, caller);
      const state = stateOf(row);
      if (state !== "DISPUTED")
        throw conflict(`Evidence is taken while DISPUTED; this transaction is ${state}`, { state });
      const [created] = await db
        .insert(evidence)
        .values({ transactionId: id, agentId: caller, content: body.content, url: body.url })
        .returning();
      if (!created) throw new Error("insert returned no row");
      return c.json({ evidence_id: created.id, transaction_id: id, created_at: created.createdAt.toISOString() }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/{id}/resolve",
      tags: ["Transactions"],
      summary:
        "Settle a dispute: seller_bps of the amount to the seller, less the fee; the rest to the buyer (arbiter)",
      security: bearerSecurity,
      request: { params: IdParam, body: { content: { "application/json": { schema: ResolveBody } }, required: true } },
      responses: {
        200: {
          description: "Settled on chain and indexed",
          content: {
            "application/json": {
              schema: z
                .object({
                  transaction_id: Uuid,
                  state: z.string(),
                  tx_hash: z.string(),
                  resolution: z.object({
                    seller_bps: z.number().int(),
                    seller_received_wei: z.string(),
                    buyer_refunded_wei: z.string(),
                    fee_wei: z.string(),
                  }),
                })
                .openapi("Resolved"),
            },
          },
        },
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const arbiter = deps.config.arbiter;
      const relayer = deps.arbiterRelayer;
      const key = apiKeyFromHeader(c.req.header("authorization"));
      if (!arbiter || !relayer || !key || hashApiKey(key) !== arbiter.apiKeyHash) {
        throw unauthorized("Only the arbiter's key resolves disputes");
      }
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      if (!isUuid(id)) throw notFound("Transaction");
      const [row] = await queryTransactions(db, chain.chainId, { id, limit: 1 });
      if (!row) throw notFound("Transaction");
      const state = stateOf(row);
      const e = row.escrow;
      if (state !== "DISPUTED" || !e)
        throw conflict(`Only a DISPUTED transaction is resolved; this one is ${state}`, { state });
      const terms = termsOfEscrow(e);
      const sent = await settle(escrow.relayedRuling(escrowIdToBytes32(id), terms, body.seller_bps), {
        via: relayer,
        transactionId: id,
        refused: (reason) => new EscrowRefusedError(`The escrow refused the ruling: ${reason}`),
        reverted: (txHash) => new TransactionRevertedError(`The ruling ${txHash} reverted`),
        indexed: transactionWrite("Resolved", id),
      });
      const [after] = await queryTransactions(db, chain.chainId, { id, limit: 1 });
      const settled = after?.escrow;
      return c.json(
        {
          transaction_id: id,
          state: after ? stateOf(after) : state,
          tx_hash: sent.txHash,
          resolution: {
            seller_bps: body.seller_bps,
            seller_received_wei: settled?.sellerPayout ?? "0",
            buyer_refunded_wei: settled?.buyerPayout ?? "0",
            fee_wei: settled?.feePaid ?? "0",
          },
        },
        200,
      );
    },
  );

  return app;
}
