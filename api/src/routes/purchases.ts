import { agentEscrowAbi, bytes32ToEscrowId, escrowIdToBytes32 } from "@agent-marketplace/contracts";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { type Address, getAddress, type Hex, parseEventLogs } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { requireAgent } from "../auth/require-agent.ts";
import { acceptTxHashOnce } from "../chain/accepted-tx-hashes.ts";
import { decryptPrivateKey } from "../chain/custodial-wallet.ts";
import { FundingProofError, type FundingTerms, jsonTypedData } from "../chain/escrow-actions.ts";
import { RelayRevertedError } from "../chain/relayer.ts";
import { agents, listings, transactions } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../http/env.ts";
import { ApiError, badRequest, conflict, forbidden, notFound, validationHook } from "../http/errors.ts";
import { isUuid } from "../http/request.ts";
import { bearerSecurity, errorResponses, TxHash, Uuid } from "../schemas/common.ts";

/*
 * POST /api/listings/{id}/buy: a FIXED listing bought into a funded escrow. A hosted buyer's
 * custodial key signs the EIP-3009 funding and the relayer submits it (the answer is FUNDED, once
 * the indexer has the block). An external buyer gets the exact calls to send (or the typed data to
 * sign) and completes with a second call carrying `tx_hash`.
 */

const BuyBody = z
  .strictObject({
    buyer_agent_id: Uuid.optional().openapi({ description: "The caller's agent id (optional; must be the caller)" }),
    deadline_hours: z.number().int().min(1).max(720).default(72).openapi({
      description: "Hours the seller has to deliver (1 to 720, default 72)",
    }),
    tx_hash: TxHash.optional().openapi({
      description: "Second call of an external buyer: the transaction that funded the escrow",
    }),
  })
  .openapi("BuyRequest");

const ContractCall = z.object({
  to: z.string(),
  function: z.string(),
  args: z.record(z.string(), z.union([z.string(), z.number()])),
  data: z.string(),
});

const Instructions = z
  .object({
    chain_id: z.number().int(),
    contract_address: z.string(),
    token_address: z.string(),
    calls: z.array(ContractCall).openapi({ description: "Send these from the buyer's wallet, in order" }),
    complete_with: z.string(),
    gasless: z.object({
      typed_data: z.unknown().openapi({ description: "EIP-3009 ReceiveWithAuthorization to sign (EIP-712)" }),
      complete_with: z.string(),
    }),
  })
  .openapi("FundingInstructions");

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
    instructions: Instructions,
    state: z.literal("PENDING"),
  })
  .openapi("PendingPurchase");

const InsufficientBalance = z
  .object({
    error: z.string(),
    code: z.literal("insufficient_balance"),
    required_wei: z.string(),
    balance_wei: z.string(),
    shortfall_wei: z.string(),
    wallet_address: z.string(),
    chain_id: z.number().int(),
    token: z.string(),
    request_id: z.string().optional(),
  })
  .openapi("InsufficientBalance");

export function purchaseRoutes(deps: Deps) {
  const { db, config, chain, escrow } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("/:id/buy", requireAgent(db));

  /** The funding terms of a transaction row between these wallets. */
  const termsOf = (row: typeof transactions.$inferSelect, buyer: Address, seller: Address): FundingTerms => ({
    escrowId: escrowIdToBytes32(row.id),
    buyer,
    seller,
    amount: BigInt(row.amountWei),
    deadline: Math.floor(row.deadline.getTime() / 1000),
    disputeWindow: row.disputeWindowSeconds,
  });

  /** Waits for the indexer to reach `block`; 503 if it does not in time (the escrow is funded). */
  async function readYourWrites(block: bigint, transactionId: string) {
    if (!(await escrow.waitIndexed(block))) {
      throw new ApiError(
        503,
        "indexer_behind",
        `Funded on chain in block ${block}, but the indexer has not reached it yet: GET /api/transactions/${transactionId} shortly`,
        { transaction_id: transactionId, block_number: block.toString() },
      );
    }
  }

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
        const terms = termsOf(row, buyerWallet, sellerWallet);
        const receipt = await escrow.verifyFunding(body.tx_hash as Hex, terms).catch((error) => {
          throw error instanceof FundingProofError ? badRequest(error.message) : error;
        });
        await acceptTxHashOnce(db, {
          txHash: body.tx_hash,
          chainId: chain.chainId,
          purpose: "fund",
          transactionId: row.id,
          agentId: caller.id,
        });
        await readYourWrites(receipt.blockNumber, row.id);
        return c.json(fundedAnswer(row, body.tx_hash), 200);
      }

      const now = await escrow.now();
      const row: typeof transactions.$inferSelect = {
        id: crypto.randomUUID(),
        listingId: listing.id,
        buyerAgentId: caller.id,
        sellerAgentId: seller.id,
        amountWei: listing.priceWei,
        currency: "USDC",
        description: listing.title,
        deadline: new Date((now + body.deadline_hours * 3600) * 1000),
        disputeWindowSeconds: config.disputeWindowSeconds,
        createdAt: new Date(),
      };
      const terms = termsOf(row, buyerWallet, sellerWallet);

      if (!caller.hosted) {
        await db.insert(transactions).values(row);
        const validBefore = BigInt(now + 3600);
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
            instructions: {
              chain_id: escrow.chainId,
              contract_address: escrow.escrow,
              token_address: escrow.usdc,
              calls: escrow.fundingCalls(terms),
              complete_with: `POST /api/listings/${listing.id}/buy with { "tx_hash": "<the fund transaction>" }, or POST /api/transactions/${row.id}/confirm with { "tx_hash" }`,
              gasless: {
                typed_data: jsonTypedData(escrow.fundingTypedData(terms, validBefore)),
                complete_with: `POST /api/transactions/${row.id}/confirm with { "authorization": { "signature", "valid_after": "0", "valid_before": "${validBefore}" } }`,
              },
            },
            state: "PENDING" as const,
          },
          201,
        );
      }

      // Hosted: the custodial key signs, the relayer pays the gas.
      const { usdcWei } = await chain.balances(buyerWallet);
      if (usdcWei < terms.amount) {
        return c.json(insufficient(terms.amount, usdcWei, buyerWallet, c.get("requestId")), 402);
      }
      if (!caller.encryptedPrivateKey) throw new Error(`hosted agent ${caller.id} has no custodial key`);
      const account = privateKeyToAccount(decryptPrivateKey(caller.encryptedPrivateKey, buyerWallet, config.masterKey));
      const authorization = await escrow.signFunding(account, terms);
      let sent: Awaited<ReturnType<typeof escrow.relayFunding>>;
      try {
        sent = await escrow.relayFunding(terms, authorization, {
          transactionId: row.id,
          record: async (tx) => {
            await tx.insert(transactions).values(row);
          },
        });
      } catch (error) {
        if (!(error instanceof RelayRevertedError)) throw error;
        // The balance moved between the check and the simulation, or the listing's terms are invalid.
        const after = await chain.balances(buyerWallet);
        if (after.usdcWei < terms.amount) {
          return c.json(insufficient(terms.amount, after.usdcWei, buyerWallet, c.get("requestId")), 402);
        }
        throw new ApiError(409, "funding_refused", `The escrow refused the funding: ${error.message}`);
      }
      const receipt = await deps.relayer.confirm(sent.txHash);
      if (receipt.status !== "success") {
        throw new ApiError(409, "funding_reverted", `The funding transaction ${sent.txHash} reverted`);
      }
      await readYourWrites(receipt.blockNumber, row.id);
      return c.json(fundedAnswer(row, sent.txHash), 200);
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

  function insufficient(required: bigint, balance: bigint, wallet: Address, requestId: string) {
    return {
      error: `Insufficient USDC balance: ${required} wei required, ${balance} wei held`,
      code: "insufficient_balance" as const,
      required_wei: required.toString(),
      balance_wei: balance.toString(),
      shortfall_wei: (required - balance).toString(),
      wallet_address: wallet,
      chain_id: chain.chainId,
      token: escrow.usdc,
      request_id: requestId,
    };
  }

  return app;
}
