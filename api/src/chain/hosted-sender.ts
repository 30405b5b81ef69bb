import { and, eq, ne } from "drizzle-orm";
import type { Address, Hex, LocalAccount, PublicClient, TransactionReceipt } from "viem";
import type { Database } from "../db/client.ts";
import { relayedTransactions } from "../db/schema.ts";
import { KeyedQueue } from "./keyed-queue.ts";
import {
  createRelayer,
  maxCostOf,
  type RelayedTransaction,
  type Relayer,
  type RelayerOptions,
  type RelayRequest,
} from "./relayer.ts";
import { createWalletLocks } from "./wallet-locks.ts";

/**
 * Transactions a hosted agent's custodial wallet sends itself, where the contract looks at
 * `msg.sender` and no signed form exists (ERC-8004: the identity's owner registers it, the
 * reviewer gives feedback). The wallet holds no ETH: the platform relayer first tops it up with
 * exactly what the transaction may cost (gas limit with headroom × fee cap, less what the wallet
 * already holds), then the wallet's own relayer (its outbox rows keyed by its address) signs and
 * sends the transaction with that very quote. A wallet sends one transaction at a time, across
 * every API process (a Postgres lock per wallet, chain/wallet-locks.ts): a top-up is sized on the
 * balance, which another send in between would spend.
 */

export interface HostedSubmission extends RelayedTransaction {
  /** Wei the platform relayer sent the wallet first (0 when it held enough). */
  topUpWei: bigint;
  topUpTxHash?: Hex;
}

export interface HostedSender {
  /**
   * Finishes what a crash left in the wallet's outbox, tops the wallet up and submits `request`
   * from it. A revert in simulation throws RelayRevertedError before anything is sent.
   */
  submit(account: LocalAccount, request: RelayRequest): Promise<HostedSubmission>;
  /** Waits for the receipt of a transaction the wallet sent (re-broadcasting it if it was lost). */
  confirm(account: LocalAccount, txHash: Hex): Promise<TransactionReceipt>;
  /** Sends or records whatever the wallet's outbox still has open; answers how many rows were. */
  resume(account: LocalAccount): Promise<number>;
  /**
   * What the outbox of this chain instance knows of `txHash`: signed (no receipt yet), mined,
   * reverted, dropped (its nonce went to another transaction), or undefined (never sent here).
   */
  outboxStatus(txHash: Hex): Promise<(typeof relayedTransactions.$inferSelect)["status"] | undefined>;
  /** Wallets (not the platform relayer) whose outbox on this chain instance has a transaction without a receipt. */
  openWallets(): Promise<Address[]>;
}

export function createHostedSender(options: {
  db: Database;
  publicClient: PublicClient;
  chainId: number;
  chainInstance: string;
  /** Pays the top-ups. */
  platformRelayer: Relayer;
}): HostedSender {
  const { db, publicClient, platformRelayer, chainInstance } = options;
  // One relayer per wallet for the life of the process, so its submissions keep nonce order here
  // too (the outbox's advisory lock orders them across processes).
  const relayers = new Map<Address, Relayer>();
  function relayerOf(account: LocalAccount): Relayer {
    let relayer = relayers.get(account.address);
    if (!relayer) {
      relayer = createRelayer({ ...options, account: account as RelayerOptions["account"] });
      relayers.set(account.address, relayer);
    }
    return relayer;
  }

  // A wallet's top-up and submission run one at a time: the next one sees what the last spent.
  // Queued in this process first, so that a process waits for another's lock once per wallet.
  const turns = new KeyedQueue();
  const locks = createWalletLocks(db.$client.options.connectionString as string, chainInstance);

  return {
    submit(account, request) {
      return turns.run(account.address, () => locks.run(account.address, () => topUpAndSubmit(account, request)));
    },

    confirm(account, txHash) {
      return relayerOf(account).confirm(txHash);
    },

    resume(account) {
      return relayerOf(account).resume();
    },

    async openWallets() {
      const rows = await db
        .selectDistinct({ address: relayedTransactions.fromAddress })
        .from(relayedTransactions)
        .where(
          and(
            eq(relayedTransactions.chainInstance, chainInstance),
            eq(relayedTransactions.status, "signed"),
            ne(relayedTransactions.fromAddress, platformRelayer.address),
          ),
        );
      return rows.map((row) => row.address as Address);
    },

    async outboxStatus(txHash) {
      const [row] = await db
        .select({ status: relayedTransactions.status })
        .from(relayedTransactions)
        .where(and(eq(relayedTransactions.txHash, txHash), eq(relayedTransactions.chainInstance, chainInstance)));
      return row?.status;
    },
  };

  async function topUpAndSubmit(account: LocalAccount, request: RelayRequest): Promise<HostedSubmission> {
    const relayer = relayerOf(account);
    await relayer.resume();
    const quote = await relayer.quote(request);
    const cost = maxCostOf(quote, request.value);
    const balance = await publicClient.getBalance({ address: account.address, blockTag: "pending" });
    let topUp: { wei: bigint; txHash?: Hex } = { wei: 0n };
    if (balance < cost) {
      const wei = cost - balance;
      const sent = await platformRelayer.submit({
        to: account.address,
        data: "0x",
        value: wei,
        purpose: "gas top-up",
      });
      const receipt = await platformRelayer.confirm(sent.txHash);
      if (receipt.status !== "success") throw new Error(`gas top-up ${sent.txHash} reverted`);
      topUp = { wei, txHash: sent.txHash };
    }
    const sent = await relayer.submit({ ...request, quote });
    return { ...sent, topUpWei: topUp.wei, topUpTxHash: topUp.txHash };
  }
}
