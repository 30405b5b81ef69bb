import { LOCAL_CHAIN_ID } from "@agent-marketplace/contracts";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, desc, eq } from "drizzle-orm";
import { getAddress } from "viem";
import { requireAgent } from "../auth/require-agent.ts";
import { custodialAccount } from "../chain/custodial-wallet.ts";
import { agents, relayedTransactions, withdrawals } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { badRequest, ConflictError, InsufficientBalanceError, notFound } from "../domain/errors.ts";
import { balanceAnswer } from "../domain/money.ts";
import { createSettlement } from "../domain/settlement.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";
import { idempotency } from "../http/idempotency.ts";
import { Address, BalanceFields, bearerSecurity, errorResponses, PositiveWei, Uuid } from "../schemas/common.ts";
import { InsufficientBalance } from "../schemas/funding.ts";

/*
 * /api/wallet: an agent's balances by id, and withdrawals out of a hosted agent's custodial wallet
 * (signed by its key as an EIP-3009 transfer, submitted by the relayer: no ETH needed).
 * /api/dev/faucet: USDC for any address, on the local chain only.
 */

/** Largest faucet grant: 1,000,000 USDC. */
const FAUCET_MAX_WEI = 1_000_000n * 1_000_000n;

const WalletBalance = z
  .object({
    agent_id: Uuid,
    address: z.string(),
    ...BalanceFields,
  })
  .openapi("WalletBalance");

const WITHDRAWAL_STATES = ["PENDING", "CONFIRMED", "FAILED"] as const;
const Withdrawal = z
  .object({
    withdrawal_id: Uuid,
    destination_address: z.string(),
    amount_wei: z.string(),
    tx_hash: z.string(),
    state: z.enum(WITHDRAWAL_STATES),
    created_at: z.string(),
  })
  .openapi("Withdrawal");

const WithdrawBody = z.object({ destination_address: Address, amount_wei: PositiveWei }).openapi("WithdrawRequest");

const FaucetBody = z
  .object({
    address: Address,
    usdc_wei: PositiveWei.refine((value) => !/^\d+$/.test(value) || BigInt(value) <= FAUCET_MAX_WEI, {
      message: `must be at most ${FAUCET_MAX_WEI} (1,000,000 USDC)`,
    }),
  })
  .openapi("FaucetRequest");

function withdrawalState(status: string | null): (typeof WITHDRAWAL_STATES)[number] {
  if (status === "mined") return "CONFIRMED";
  if (status === "reverted" || status === "dropped") return "FAILED";
  return "PENDING";
}

export function walletRoutes(deps: Deps) {
  const { db, config, chain, usdc } = deps;
  const settle = createSettlement(deps);
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("/api/wallet/withdraw", requireAgent(db), idempotency(db));
  app.use("/api/wallet/withdrawals", requireAgent(db));

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/wallet/balance",
      tags: ["Wallet"],
      summary: "ETH and USDC balance of an agent's wallet, read from the chain",
      request: { query: z.strictObject({ agent_id: Uuid }) },
      responses: {
        200: { description: "Balances", content: { "application/json": { schema: WalletBalance } } },
        ...errorResponses(400, 404),
      },
    }),
    async (c) => {
      const { agent_id } = c.req.valid("query");
      const [agent] = await db
        .select({ wallet: agents.walletAddress })
        .from(agents)
        .where(and(eq(agents.id, agent_id), eq(agents.isActive, true)));
      if (!agent) throw notFound("Agent");
      const address = getAddress(agent.wallet);
      return c.json({ agent_id, address, ...balanceAnswer(await chain.balances(address)) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/wallet/withdraw",
      tags: ["Wallet"],
      summary: "Send USDC out of a hosted agent's wallet (gasless)",
      security: bearerSecurity,
      request: { body: { content: { "application/json": { schema: WithdrawBody } }, required: true } },
      responses: {
        200: { description: "Sent and mined", content: { "application/json": { schema: Withdrawal } } },
        402: { description: "The balance is short", content: { "application/json": { schema: InsufficientBalance } } },
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const caller = c.get("agent").row;
      if (!caller.hosted || !caller.encryptedPrivateKey) {
        throw badRequest("Only hosted agents withdraw through the API; an external agent sends from its own wallet");
      }
      const wallet = getAddress(caller.walletAddress);
      const amount = BigInt(body.amount_wei);
      if (body.destination_address === wallet) throw badRequest("destination_address is the agent's own wallet");
      const { usdcWei } = await chain.balances(wallet);
      if (usdcWei < amount)
        throw new InsufficientBalanceError(amount, usdcWei, wallet, chain.chainId, deps.escrow.usdc);
      const account = custodialAccount(caller, config.masterKey);
      const id = crypto.randomUUID();
      const { txHash, receipt } = await settle(await usdc.relayedTransfer(account, body.destination_address, amount), {
        record: async (tx, { txHash }) => {
          await tx.insert(withdrawals).values({
            id,
            agentId: caller.id,
            destinationAddress: body.destination_address,
            amountWei: body.amount_wei,
            txHash,
          });
        },
        refused: (reason) =>
          new ConflictError(`The token refused the transfer: ${reason}`, undefined, "withdrawal_refused"),
      });
      return c.json(
        {
          withdrawal_id: id,
          destination_address: body.destination_address,
          amount_wei: body.amount_wei,
          tx_hash: txHash,
          state: receipt.status === "success" ? ("CONFIRMED" as const) : ("FAILED" as const),
          created_at: new Date().toISOString(),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/wallet/withdrawals",
      tags: ["Wallet"],
      summary: "The caller's withdrawals, newest first (at most 100)",
      security: bearerSecurity,
      responses: {
        200: {
          description: "Withdrawals",
          content: { "application/json": { schema: z.object({ withdrawals: z.array(Withdrawal) }) } },
        },
        ...errorResponses(401),
      },
    }),
    async (c) => {
      const rows = await db
        .select({ withdrawal: withdrawals, status: relayedTransactions.status })
        .from(withdrawals)
        .leftJoin(relayedTransactions, eq(relayedTransactions.txHash, withdrawals.txHash))
        .where(eq(withdrawals.agentId, c.get("agent").id))
        .orderBy(desc(withdrawals.createdAt))
        .limit(100);
      return c.json(
        {
          withdrawals: rows.map(({ withdrawal, status }) => ({
            withdrawal_id: withdrawal.id,
            destination_address: withdrawal.destinationAddress,
            amount_wei: withdrawal.amountWei,
            tx_hash: withdrawal.txHash,
            state: withdrawalState(status),
            created_at: withdrawal.createdAt.toISOString(),
          })),
        },
        200,
      );
    },
  );

  // The faucet exists only where USDC is the local MockUSDC.
  if (chain.chainId === LOCAL_CHAIN_ID) {
    app.openapi(
      createRoute({
        method: "post",
        path: "/api/dev/faucet",
        tags: ["Development"],
        summary: "Mint test USDC to an address (local chain only)",
        request: { body: { content: { "application/json": { schema: FaucetBody } }, required: true } },
        responses: {
          200: {
            description: "Minted",
            content: {
              "application/json": {
                schema: z
                  .object({ address: z.string(), usdc_wei: z.string(), tx_hash: z.string() })
                  .openapi("FaucetGrant"),
              },
            },
          },
          ...errorResponses(400),
        },
      }),
      async (c) => {
        const body = c.req.valid("json");
        const sent = await settle(usdc.relayedMint(body.address, BigInt(body.usdc_wei)), {
          refused: (reason) => badRequest(`The faucet cannot pay this address: ${reason}`),
        });
        return c.json({ address: body.address, usdc_wei: body.usdc_wei, tx_hash: sent.txHash }, 200);
      },
    );
  }

  return app;
}
