import { LOCAL_CHAIN_ID } from "@agent-marketplace/contracts";
import { and, desc, eq } from "drizzle-orm";
import { type Address, getAddress, type Hex, type TransactionReceipt } from "viem";
import { custodialAccount } from "../../chain/custodial-wallet.ts";
import { agents, relayedTransactions, withdrawals } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { notify } from "../../notifications/notify.ts";
import { badRequest, ConflictError, notFound } from "../shared/errors.ts";
import { formatUsdc } from "../shared/money.ts";
import { createSettlement } from "../shared/settlement.ts";
import { type AwaitingApproval, awaitingApproval } from "./approval-requests.ts";
import { balanceReservations, type HeldReservation } from "./balance-reservations.ts";
import { cappedMoveOf, type SpendOrigin } from "./spending-caps.ts";

/*
 * Agents' wallets: balances by agent id, withdrawals out of a hosted agent's custodial wallet
 * (signed by its key as an EIP-3009 transfer, submitted by the relayer: no ETH needed), and the
 * faucet that mints test USDC where USDC is the local MockUSDC.
 */

export const WITHDRAWAL_STATES = ["PENDING", "CONFIRMED", "FAILED"] as const;
export type WithdrawalState = (typeof WITHDRAWAL_STATES)[number];

export interface WalletBalance {
  address: Address;
  ethWei: bigint;
  usdcWei: bigint;
}

export interface Withdrawal {
  id: string;
  destinationAddress: string;
  /** As the caller wrote it (digits). */
  amountWei: string;
  txHash: string;
  state: WithdrawalState;
  createdAt: Date;
}

export interface WithdrawInput {
  /** The calling agent's row (its key decrypts the custodial wallet). */
  agent: typeof agents.$inferSelect;
  destinationAddress: Address;
  amountWei: string;
  /** Set when an owner's session sends it (lowercase), for the agent's log of withdrawals. */
  ownerAddress?: string;
  /** An approval of the owner being carried out (domain/owners/spending-approvals.ts). */
  approvalId?: string;
}

export interface FaucetInput {
  address: Address;
  usdcWei: string;
}

/** A transfer sent and mined. */
type SentTransfer = { txHash: Hex; receipt: TransactionReceipt };

/** A withdrawal's state from its relayed send's status (none yet: still pending). */
function withdrawalState(status: string | null): WithdrawalState {
  if (status === "mined") return "CONFIRMED";
  if (status === "reverted" || status === "dropped") return "FAILED";
  return "PENDING";
}

export function walletUseCases(deps: Deps) {
  const { db, config, chain, usdc } = deps;
  const settle = createSettlement(deps);
  const reservations = balanceReservations(deps);

  /** ETH and USDC of an active agent's wallet, read from the chain (404 for another id). */
  async function balance(agentId: string): Promise<WalletBalance> {
    const [agent] = await db
      .select({ wallet: agents.walletAddress })
      .from(agents)
      .where(and(eq(agents.id, agentId), eq(agents.isActive, true)));
    if (!agent) throw notFound("Agent");
    const address = getAddress(agent.wallet);
    return { address, ...(await chain.balances(address)) };
  }

  /**
   * Sends USDC out of a hosted agent's wallet and waits until mined. Refuses (400) an external
   * agent and a transfer to the wallet itself, 402 a short balance (less what the wallet's other
   * sends in flight reserved: domain/wallet/balance-reservations.ts), 409 a transfer the token refuses.
   * FAILED is left only for a transfer the token accepted in simulation and refused once mined
   * (an address blacklisted in between): no check before sending can foresee that.
   * Every withdrawal is logged in the agent's notifications (`wallet.withdrawal`, saying whether
   * the agent or its owner sent it), committed with the withdrawal's row: money that leaves by an
   * owner's hand is never a surprise to the agent.
   */
  async function withdraw({
    agent,
    destinationAddress,
    amountWei,
    ownerAddress,
    approvalId,
  }: WithdrawInput): Promise<Withdrawal | AwaitingApproval> {
    if (!agent.hosted || !agent.encryptedPrivateKey) {
      throw badRequest("Only hosted agents withdraw through the API; an external agent sends from its own wallet");
    }
    const wallet = getAddress(agent.walletAddress);
    const amount = BigInt(amountWei);
    if (destinationAddress === wallet) throw badRequest("destination_address is the agent's own wallet");
    const account = custodialAccount(agent, config.masterKey);
    const id = crypto.randomUUID();
    const spend = { wallet, amountWei: amount, purpose: "withdraw" };
    const send = async (held: HeldReservation): Promise<SentTransfer> =>
      settle(await usdc.relayedTransfer(account, destinationAddress, amount), {
        record: async (tx, { txHash }) => {
          await held.attach(tx, txHash);
          await tx.insert(withdrawals).values({ id, agentId: agent.id, destinationAddress, amountWei, txHash });
          await notify(tx, [
            {
              agentId: agent.id,
              kind: "wallet.withdrawal",
              payload: {
                withdrawal_id: id,
                destination_address: destinationAddress,
                amount_wei: amountWei,
                amount_usdc: formatUsdc(amountWei),
                tx_hash: txHash,
                by: ownerAddress ? "owner" : "agent",
                ...(ownerAddress && { owner_address: getAddress(ownerAddress) }),
              },
              dedupeKey: `withdrawal:${id}`,
            },
          ]);
        },
        refused: (reason) =>
          new ConflictError(`The token refused the transfer: ${reason}`, undefined, "withdrawal_refused"),
      });
    // To the owner's own address it is no spending: its caps do not apply.
    const toOwner = agent.ownerAddress !== null && destinationAddress.toLowerCase() === agent.ownerAddress;
    let sent: SentTransfer;
    if (toOwner) {
      sent = await reservations.hold(spend, send);
    } else {
      const origin: SpendOrigin = approvalId
        ? { kind: "approval", approvalId }
        : ownerAddress
          ? { kind: "owner" }
          : { kind: "agent" };
      const outcome = await reservations.holdCapped(
        spend,
        cappedMoveOf(agent, {
          action: "withdrawal",
          request: { destination_address: destinationAddress, amount_wei: amountWei },
          summary: `Withdraw to ${destinationAddress}`,
          origin,
        }),
        send,
      );
      if ("approval" in outcome) return awaitingApproval(outcome.approval);
      sent = outcome.sent;
    }
    const { txHash, receipt } = sent;
    return {
      id,
      destinationAddress,
      amountWei,
      txHash,
      state: receipt.status === "success" ? "CONFIRMED" : "FAILED",
      createdAt: new Date(),
    };
  }

  /** The agent's withdrawals, newest first (at most 100). */
  async function withdrawalsOf(agentId: string): Promise<Withdrawal[]> {
    const rows = await db
      .select({ withdrawal: withdrawals, status: relayedTransactions.status })
      .from(withdrawals)
      .leftJoin(relayedTransactions, eq(relayedTransactions.txHash, withdrawals.txHash))
      .where(eq(withdrawals.agentId, agentId))
      .orderBy(desc(withdrawals.createdAt))
      .limit(100);
    return rows.map(({ withdrawal, status }) => ({
      id: withdrawal.id,
      destinationAddress: withdrawal.destinationAddress,
      amountWei: withdrawal.amountWei,
      txHash: withdrawal.txHash,
      state: withdrawalState(status),
      createdAt: withdrawal.createdAt,
    }));
  }

  /** Mints test USDC to an address and waits until mined (400 if the token refuses). */
  async function faucet({ address, usdcWei }: FaucetInput): Promise<{ txHash: Hex }> {
    const sent = await settle(usdc.relayedMint(address, BigInt(usdcWei)), {
      refused: (reason) => badRequest(`The faucet cannot pay this address: ${reason}`),
    });
    return { txHash: sent.txHash };
  }

  return {
    balance,
    withdraw,
    withdrawals: withdrawalsOf,
    /** Only where USDC is the local MockUSDC; absent on any other chain. */
    faucet: chain.chainId === LOCAL_CHAIN_ID ? faucet : undefined,
  };
}

export type WalletUseCases = ReturnType<typeof walletUseCases>;
