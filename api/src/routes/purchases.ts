import { agentEscrowAbi, bytes32ToEscrowId, escrowIdToBytes32 } from "@agent-marketplace/contracts";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, eq, isNull } from "drizzle-orm";
import { getAddress, type Hex, parseEventLogs } from "viem";
import { requireAgent } from "../auth/require-agent.ts";
import { requireAgentOrOwner } from "../auth/user-sessions.ts";
import { agents, listings, transactions } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import {
  badRequest,
  conflict,
  EscrowRefusedError,
  forbidden,
  notFound,
  TransactionRevertedError,
} from "../domain/errors.ts";
import { escrowFunding } from "../domain/escrow-funding.ts";
import { termsOfEscrow } from "../domain/escrow-terms.ts";
import { isUuid } from "../domain/ids.ts";
import { transactionWrite } from "../domain/read-your-writes.ts";
import { createSettlement } from "../domain/settlement.ts";
import { queryTransactions } from "../domain/transactions.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";
import { idempotency } from "../http/idempotency.ts";
import { bearerSecurity, errorResponses, TxHash, Uuid } from "../schemas/common.ts";
import { FundingInstructions, InsufficientBalance } from "../schemas/funding.ts";

/*
 * POST /api/listings/{id}/buy: a FIXED listing bought into a funded escrow. A hosted buyer's
 * custodial key signs the EIP-3009 funding and the relayer submits it (the answer is FUNDED, once
 * the indexer has the block). An external buyer gets the exact calls to send (or the typed data to
 * sign) and completes with a second call carrying `tx_hash`.
 */

const BuyBody = z
  .object({
    buyer_agent_id: Uuid.optional().openapi({ description: "The caller's agent id (optional; must be the caller)" }),
    deadline_hours: z.number().int().min(1).max(720).default(72).openapi({
      description: "Hours the seller has to deliver (1 to 720, default 72)",
    }),
    tx_hash: TxHash.optional().openapi({
      description: "Second call of an external buyer: the transaction that funded the escrow",
    }),
  })
  .openapi("BuyRequest");

const HostedBuy = z
  .object({
    transaction_id: Uuid,
    escrow_id: Uuid,
    escrow_id_bytes32: z.string(),
    amount_wei: z.string(),
    currency: z.literal("USDC"),
    deadline: z.string(),
    tx_hash: z.string(),
    state: z.literal("FUNDED"),
    message: z.string(),
  })
  .openapi("FundedPurchase");

const ExternalBuy = z
  .object({
    transaction_id: Uuid,
    escrow_id: Uuid,
    escrow_id_bytes32: z.string(),
    contract_address: z.string(),
    seller_address: z.string(),
    amount_wei: z.string(),
    currency: z.literal("USDC"),
    deadline: z.string(),
    deadline_hours: z.number().int(),
    instructions: FundingInstructions,
    state: z.literal("PENDING"),
  })
  .openapi("PendingPurchase");

const ClaimBody = z
  .object({
    agent_id: Uuid.optional().openapi({
      description: "The claiming agent (optional with an API key; must be its agent)",
    }),
  })
  .openapi("ClaimRequest");

const Claimed = z
  .object({
    success: z.literal(true),
    transaction_id: Uuid,
    message: z.string(),
    deadline: z.string(),
    tx_hash: z.string(),
    state: z.literal("FUNDED"),
  })
  .openapi("Claimed");

export function purchaseRoutes(deps: Deps) {
  const { db, chain, escrow } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("/:id/buy", requireAgent(db), idempotency(db));
  app.use("/:id/claim", requireAgentOrOwner(db), idempotency(db));

  const settle = createSettlement(deps);
  const funding = escrowFunding(deps);

  app.openapi(
    createRoute({
      method: "post",
      path: "/{id}/buy",
      tags: ["Listings"],
      summary: "Buy a FIXED listing into a funded escrow",
      description:
        "Hosted buyer: the service funds the escrow from the agent's wallet (gasless) and answers FUNDED. External buyer: the first call answers PENDING with the calls to send from the buyer's wallet (or EIP-3009 typed data to sign); the second call with `tx_hash` verifies the funding and answers FUNDED.",
      security: bearerSecurity,
      request: {
        params: z.object({ id: z.string().openapi({ format: "uuid" }) }),
        body: { content: { "application/json": { schema: BuyBody } }, required: false },
      },
      responses: {
        200: {
          description: "Funded (hosted buyer, or an external buyer's second call)",
          content: { "application/json": { schema: HostedBuy } },
        },
        201: {
          description: "Pending: an external buyer's instructions",
          content: { "application/json": { schema: ExternalBuy } },
        },
        402: {
          description: "The buyer's USDC balance is short",
          content: { "application/json": { schema: InsufficientBalance } },
        },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = BuyBody.parse(c.req.valid("json") ?? {});
      const caller = c.get("agent").row;
      if (body.buyer_agent_id && body.buyer_agent_id !== caller.id) {
        throw forbidden("buyer_agent_id must be the agent of this API key");
      }
      if (!isUuid(id)) throw notFound("Listing");
      const [found] = await db
        .select({ listing: listings, seller: agents })
        .from(listings)
        .innerJoin(agents, eq(agents.id, listings.agentId))
        .where(eq(listings.id, id));
      if (!found) throw notFound("Listing");
      const { listing, seller } = found;
      if (listing.listingType !== "FIXED") throw badRequest("Only FIXED listings are bought; claim a BOUNTY");
      if (seller.id === caller.id) throw badRequest("An agent cannot buy its own listing");
      if (!listing.isActive) throw conflict("This listing is not active");
      if (!seller.isActive || seller.isPaused) throw conflict("The seller is not taking orders now");
      const buyerWallet = getAddress(caller.walletAddress);
      const sellerWallet = getAddress(seller.walletAddress);

      // An external buyer's second call: the funding transaction it sent.
      if (body.tx_hash) {
        const row = await pendingPurchaseProvenBy(body.tx_hash as Hex, listing.id, caller.id);
        const terms = funding.termsOf(row, buyerWallet, sellerWallet);
        await funding.completeWithTxHash(row, terms, body.tx_hash as Hex, caller.id);
        return c.json(fundedAnswer(row, body.tx_hash), 200);
      }

      const row: typeof transactions.$inferSelect = {
        id: crypto.randomUUID(),
        listingId: listing.id,
        buyerAgentId: caller.id,
        sellerAgentId: seller.id,
        amountWei: listing.priceWei,
        currency: "USDC",
        description: listing.title,
        ...(await funding.schedule(body.deadline_hours)),
        createdAt: new Date(),
      };

      if (caller.hosted) {
        const txHash = await funding.fundHosted(caller, row, sellerWallet);
        return c.json(fundedAnswer(row, txHash), 200);
      }
      await db.insert(transactions).values(row);
      const terms = funding.termsOf(row, buyerWallet, sellerWallet);
      return c.json(
        {
          transaction_id: row.id,
          escrow_id: row.id,
          escrow_id_bytes32: terms.escrowId,
          contract_address: escrow.escrow,
          seller_address: sellerWallet,
          amount_wei: row.amountWei,
          currency: "USDC" as const,
          deadline: row.deadline.toISOString(),
          deadline_hours: body.deadline_hours,
          instructions: funding.instructions(
            row,
            terms,
            `POST /api/listings/${listing.id}/buy with { "tx_hash": "<the fund transaction>" }, or POST /api/transactions/${row.id}/confirm with { "tx_hash" }`,
          ),
          state: "PENDING" as const,
        },
        201,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/{id}/claim",
      tags: ["Listings"],
      summary: "Claim a BOUNTY: become its seller on chain",
      description:
        "The first claim wins: the escrow names the claimant as seller (the relayer, as the escrow's operator, assigns it) with a delivery deadline. A claimant who misses the deadline loses the claim and the bounty re-opens.",
      security: bearerSecurity,
      request: {
        params: z.object({ id: z.string().openapi({ format: "uuid" }) }),
        body: { content: { "application/json": { schema: ClaimBody } }, required: false },
      },
      responses: {
        200: { description: "Claimed", content: { "application/json": { schema: Claimed } } },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      // The body (validated by the route) holds only agent_id, which picked the agent
      // (owner session) or was checked against the key's (auth middleware).
      const caller = c.get("agent").row;
      if (!isUuid(id)) throw notFound("Listing");
      const [found] = await db
        .select({ listing: listings, transaction: transactions })
        .from(listings)
        .innerJoin(transactions, eq(transactions.listingId, listings.id))
        .where(and(eq(listings.id, id), eq(listings.listingType, "BOUNTY")));
      if (!found) {
        const [listing] = await db.select({ type: listings.listingType }).from(listings).where(eq(listings.id, id));
        if (listing) throw badRequest("Only BOUNTY listings are claimed; buy a FIXED listing");
        throw notFound("Listing");
      }
      const { listing, transaction } = found;
      if (listing.agentId === caller.id) throw badRequest("An agent cannot claim its own bounty");
      if (!listing.isActive) throw conflict("This bounty is not open");
      const [row] = await queryTransactions(db, chain.chainId, { id: transaction.id, limit: 1 });
      const e = row?.escrow;
      if (e?.status !== "FUNDED") {
        throw conflict("This bounty is not open for claims", { state: e ? e.status : "PENDING" });
      }
      const now = await escrow.now();
      if (listing.bountyExpiresAt && now * 1000 >= listing.bountyExpiresAt.getTime()) {
        throw conflict("This bounty has expired; its reward goes back to the poster");
      }
      const claimedBySomeone = BigInt(e.seller) !== 0n;
      if (claimedBySomeone && Number(e.deadline) >= now) throw conflict("This bounty is already claimed");
      const deadline = now + (listing.bountyDeliveryHours ?? 72) * 3600;
      const terms = termsOfEscrow(e);
      const sent = await settle(
        escrow.relayedAssignSeller(
          escrowIdToBytes32(transaction.id),
          terms,
          getAddress(caller.walletAddress),
          deadline,
        ),
        {
          transactionId: transaction.id,
          // The claim is taken in the database with the outbox record: of concurrent claims, the
          // relayer's lock lets one in; the others find the seller set and send nothing.
          record: async (tx) => {
            const taken = await tx
              .update(transactions)
              .set({ sellerAgentId: caller.id, deadline: new Date(deadline * 1000) })
              .where(
                and(
                  eq(transactions.id, transaction.id),
                  transaction.sellerAgentId
                    ? eq(transactions.sellerAgentId, transaction.sellerAgentId)
                    : isNull(transactions.sellerAgentId),
                ),
              )
              .returning({ id: transactions.id });
            if (taken.length === 0) throw conflict("This bounty was just claimed by another agent");
          },
          refused: (reason) => new EscrowRefusedError(`The escrow refused the claim: ${reason}`),
          reverted: (txHash) => new TransactionRevertedError(`The claim transaction ${txHash} reverted`),
          indexed: transactionWrite("Claimed", transaction.id),
        },
      );
      return c.json(
        {
          success: true as const,
          transaction_id: transaction.id,
          message: "Claimed. Deliver before the deadline; the reward is released after the dispute window.",
          deadline: new Date(deadline * 1000).toISOString(),
          tx_hash: sent.txHash,
          state: "FUNDED" as const,
        },
        200,
      );
    },
  );

  /** The caller's PENDING purchase of this listing that `txHash` funded (from its Funded event). */
  async function pendingPurchaseProvenBy(txHash: Hex, listingId: string, buyerId: string) {
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
    if (!receipt) throw badRequest(`No transaction ${txHash} has been mined on chain ${chain.chainId}`);
    const funded = parseEventLogs({ abi: agentEscrowAbi, eventName: "Funded", logs: receipt.logs }).filter(
      (log) => getAddress(log.address) === escrow.escrow,
    );
    for (const log of funded) {
      let transactionId: string;
      try {
        transactionId = bytes32ToEscrowId(log.args.escrowId);
      } catch {
        continue;
      }
      const [row] = await db
        .select()
        .from(transactions)
        .where(
          and(
            eq(transactions.id, transactionId),
            eq(transactions.listingId, listingId),
            eq(transactions.buyerAgentId, buyerId),
          ),
        );
      if (row) return row;
    }
    throw badRequest(`Transaction ${txHash} did not fund a purchase of this listing by this agent`);
  }

  function fundedAnswer(row: typeof transactions.$inferSelect, txHash: string) {
    return {
      transaction_id: row.id,
      escrow_id: row.id,
      escrow_id_bytes32: escrowIdToBytes32(row.id),
      amount_wei: row.amountWei,
      currency: "USDC" as const,
      deadline: row.deadline.toISOString(),
      tx_hash: txHash,
      state: "FUNDED" as const,
      message: "Escrow funded. The seller has until the deadline to deliver.",
    };
  }

  return app;
}
