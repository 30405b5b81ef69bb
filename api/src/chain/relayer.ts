import { and, eq, max, ne, sql } from "drizzle-orm";
import {
  type Account,
  type Address,
  BaseError,
  type Hex,
  keccak256,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import type { Database, DbTransaction } from "../db/client.ts";
import { relayedTransactions } from "../db/schema.ts";
import { markSent } from "./sends-in-request.ts";
import { isTransportError } from "./transport-error.ts";

/** A contract call for the relayer to sign and send, as `chain/` encodes it. */
export interface RelayCall {
  to: Address;
  data: Hex;
  /** What it does ("fund", "deliver", ...): for logs and the keeper. */
  purpose: string;
}

export interface RelayRequest extends RelayCall {
  /** Wei sent along (a gas top-up of another wallet); none by default. */
  value?: bigint;
  /**
   * Sign with this gas limit and these fees (from {@link Relayer.quote}) instead of estimating
   * again: what a top-up paid for is then exactly what the transaction may spend.
   */
  quote?: GasQuote;
  /** The marketplace transaction it acts on, if any. */
  transactionId?: string;
  /**
   * Runs in the database transaction that records the outbox row, so the caller's own rows and
   * the record of what was sent commit together or not at all.
   */
  record?: (tx: DbTransaction, sent: { txHash: Hex }) => Promise<void>;
}

/** The gas limit (with headroom) and fees a transaction is signed with. */
export interface GasQuote {
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** The most a quoted transaction can cost its sender: every unit of gas at the fee cap, plus its value. */
export function maxCostOf(quote: GasQuote, value = 0n): bigint {
  return quote.gas * quote.maxFeePerGas + value;
}

export interface RelayedTransaction {
  id: string;
  txHash: Hex;
  nonce: number;
}

/** The transaction would revert: nothing was signed, recorded or sent. */
export class RelayRevertedError extends Error {
  readonly cause: unknown;
  constructor(cause: unknown) {
    super(cause instanceof BaseError ? cause.shortMessage : String(cause));
    this.cause = cause;
  }
}

export interface Relayer {
  address: Address;
  /** The chain instance its outbox rows are tied to (the hash of the escrow's deployment block). */
  chainInstance: string;
  /**
   * Simulates the call (a revert throws {@link RelayRevertedError}) and answers the gas limit, with
   * headroom, and the fees {@link submit} would sign it with.
   */
  quote(request: Pick<RelayRequest, "to" | "data" | "value">): Promise<GasQuote>;
  /**
   * Simulates the call unless it carries a quote (a revert throws {@link RelayRevertedError} and
   * changes nothing), signs it with the next nonce, records it in the outbox and broadcasts it. The answer comes once the
   * row is committed: if the broadcast itself fails, the row stays `signed` and {@link resume}
   * sends it again.
   */
  submit(request: RelayRequest): Promise<RelayedTransaction>;
  /** Waits for the receipt of a relayed transaction and records its outcome. */
  confirm(txHash: Hex, timeoutMs?: number): Promise<TransactionReceipt>;
  /**
   * Finishes what a crash interrupted: every `signed` row of this chain gets its receipt recorded,
   * or is broadcast again and recorded once mined (waiting a few seconds at most; one still
   * unmined stays open for the next resume); a row whose nonce another transaction took is marked
   * `dropped`. Returns how many rows were still open.
   */
  resume(): Promise<number>;
}

export interface RelayerOptions {
  db: Database;
  publicClient: PublicClient;
  chainId: number;
  /** Tells this chain from an earlier one with the same id (a restarted local node). */
  chainInstance: string;
  /** A local account (signs offline): the relayer's key. */
  account: Account & { signTransaction: NonNullable<Account["signTransaction"]> };
}

/** Headroom over the estimate, in percent: state may change between estimate and inclusion. */
const GAS_HEADROOM_PERCENT = 20n;
/** How long a fee estimate is reused: about a block (Base: 2 s); the cap has viem's 20% margin. */
const FEES_TTL_MS = 1_000;
/** How often waiting receipts look for a new block, and how often a missing one is re-sent. */
const RECEIPT_POLL_MS = 50;
const REBROADCAST_MS = 2_000;
/** How long resume waits for the receipts of what it sent again: a couple of blocks on Base. */
const RESUME_WAIT_MS = 5_000;

export function createRelayer(options: RelayerOptions): Relayer {
  const { db, publicClient, chainId, chainInstance, account } = options;
  const address = account.address;
  const outbox = relayedTransactions;
  const ours = and(eq(outbox.chainInstance, chainInstance), eq(outbox.fromAddress, address));

  async function broadcast(raw: Hex): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await publicClient.sendRawTransaction({ serializedTransaction: raw });
        return;
      } catch (error) {
        const message = error instanceof BaseError ? error.details || error.shortMessage : String(error);
        // Already in the pool or mined: the same signed bytes, nothing to do.
        if (/already known|known transaction|already imported|nonce too low/i.test(message)) return;
        // A lower nonce is still on its way (another instance's, or a node that mines on send and
        // queues nothing): wait for it briefly.
        if (/nonce too high/i.test(message) && attempt < 20) {
          await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
          continue;
        }
        throw error;
      }
    }
  }

  /**
   * Broadcasts in nonce order within this process: each submission takes its place in the chain
   * while it holds the nonce lock, and is sent only once its row has committed.
   */
  let broadcasts: Promise<unknown> = Promise.resolve();
  function queueBroadcast(raw: Hex, committed: Promise<boolean>): Promise<void> {
    const sent = broadcasts.then(async () => {
      if (await committed) await broadcast(raw).catch(() => {});
    });
    broadcasts = sent;
    return sent;
  }

  /** Fees, estimated at most once per FEES_TTL_MS (two RPC calls each time). */
  let fees: { at: number; value: Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> } | undefined;
  function currentFees() {
    if (!fees || Date.now() - fees.at > FEES_TTL_MS) {
      const value = publicClient.estimateFeesPerGas();
      fees = { at: Date.now(), value };
      value.catch(() => {
        fees = undefined;
      });
    }
    return fees.value;
  }

  /**
   * Receipts for every waiting confirm, from one loop: it asks for the block number and, only when
   * a block was added, for the receipts still missing. Twenty requests waiting cost the node one
   * call per poll, not twenty.
   */
  const waiting = new Map<Hex, Array<(receipt: TransactionReceipt) => void>>();
  let watching = false;
  async function watchReceipts(): Promise<void> {
    if (watching) return;
    watching = true;
    let seen = -1n;
    try {
      while (waiting.size > 0) {
        const block = await publicClient.getBlockNumber({ cacheTime: 0 }).catch(() => seen);
        if (block !== seen) {
          seen = block;
          await Promise.all(
            [...waiting.keys()].map(async (hash) => {
              const receipt = await publicClient.getTransactionReceipt({ hash }).catch(() => undefined);
              if (!receipt) return;
              for (const resolve of waiting.get(hash) ?? []) resolve(receipt);
              waiting.delete(hash);
            }),
          );
        }
        if (waiting.size > 0) await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
      }
    } finally {
      watching = false;
    }
  }
  /** The receipt of `hash` once a block includes it, or undefined after `ms`. */
  function nextReceipt(hash: Hex, ms: number): Promise<TransactionReceipt | undefined> {
    return new Promise((resolve) => {
      const resolvers = waiting.get(hash) ?? [];
      const timer = setTimeout(() => {
        const left = (waiting.get(hash) ?? []).filter((r) => r !== done);
        if (left.length > 0) waiting.set(hash, left);
        else waiting.delete(hash);
        resolve(undefined);
      }, ms);
      const done = (receipt: TransactionReceipt) => {
        clearTimeout(timer);
        resolve(receipt);
      };
      resolvers.push(done);
      waiting.set(hash, resolvers);
      void watchReceipts();
    });
  }

  /**
   * This process's submissions take the advisory lock one at a time; the others wait here. Waiting
   * in the database instead would hold a pooled connection each, and a full pool of waiters would
   * starve the holder of any connection its `record` needed.
   */
  let turns: Promise<void> = Promise.resolve();
  function nextTurn(): Promise<() => void> {
    let release: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ready = turns.then(() => release);
    turns = turns.then(() => done);
    return ready;
  }

  async function record(txHash: Hex, receipt: TransactionReceipt): Promise<void> {
    await db
      .update(outbox)
      .set({
        status: receipt.status === "success" ? "mined" : "reverted",
        blockNumber: receipt.blockNumber.toString(),
        updatedAt: new Date(),
      })
      .where(eq(outbox.txHash, txHash));
  }

  /** The gas a call needs plus the headroom; a revert throws {@link RelayRevertedError}. */
  async function gasLimitOf(request: Pick<RelayRequest, "to" | "data" | "value">): Promise<bigint> {
    try {
      const gas = await publicClient.estimateGas({
        account: address,
        to: request.to,
        data: request.data,
        value: request.value,
      });
      return gas + (gas * GAS_HEADROOM_PERCENT) / 100n;
    } catch (error) {
      // A node that did not answer is not a revert: that error goes up as it is (a 503).
      if (isTransportError(error)) throw error;
      throw new RelayRevertedError(error);
    }
  }

  return {
    address,
    chainInstance,

    async quote(request) {
      const [gas, fee] = await Promise.all([gasLimitOf(request), currentFees()]);
      return { gas, ...fee };
    },

    async submit(request) {
      const gasLimit = request.quote?.gas ?? (await gasLimitOf(request));
      // The chain's count of the relayer's transactions, read before the lock (the node's answer is
      // the slow part of a submission); under the lock it only matters if something else sent
      // from this key, since every one of ours is in the outbox.
      const [fee, chainNonce] = await Promise.all([
        request.quote ?? currentFees(),
        publicClient.getTransactionCount({ address, blockTag: "pending" }),
      ]);
      let settle: (committed: boolean) => void = () => {};
      const committed = new Promise<boolean>((resolve) => {
        settle = resolve;
      });
      let sending: Promise<void> = Promise.resolve();
      const endTurn = await nextTurn();
      markSent();
      const signed = await db
        .transaction(async (tx) => {
          // One sender at a time per relayer key, across every API instance on this database.
          await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`relayer:${chainInstance}:${address}`}))`);
          const [last] = await tx
            .select({ nonce: max(outbox.nonce) })
            .from(outbox)
            .where(and(ours, ne(outbox.status, "dropped")));
          const nonce = Math.max(chainNonce, (last?.nonce ?? -1) + 1);
          const raw = await account.signTransaction({
            chainId,
            type: "eip1559",
            to: request.to,
            data: request.data,
            value: request.value,
            nonce,
            gas: gasLimit,
            maxFeePerGas: fee.maxFeePerGas,
            maxPriorityFeePerGas: fee.maxPriorityFeePerGas,
          });
          const txHash = keccak256(raw);
          const [row] = await tx
            .insert(outbox)
            .values({
              chainId,
              chainInstance,
              fromAddress: address,
              nonce,
              toAddress: request.to,
              data: request.data,
              purpose: request.purpose,
              transactionId: request.transactionId,
              rawTransaction: raw,
              txHash,
            })
            .returning({ id: outbox.id });
          await request.record?.(tx, { txHash });
          // Queued in nonce order now, sent after the commit: a crash in between leaves a signed
          // row that resume() sends.
          sending = queueBroadcast(raw, committed);
          return { id: (row as { id: string }).id, txHash, nonce, raw };
        })
        .then(
          (result) => {
            settle(true);
            return result;
          },
          (error: unknown) => {
            settle(false);
            throw error;
          },
        )
        .finally(endTurn);
      await sending;
      return { id: signed.id, txHash: signed.txHash, nonce: signed.nonce };
    },

    async confirm(txHash, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      // Mined on send (automine), or already: no wait.
      let receipt = await publicClient.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
      while (!receipt) {
        const left = until - Date.now();
        if (left <= 0) throw new Error(`no receipt for ${txHash} within ${timeoutMs} ms`);
        receipt = await nextReceipt(txHash, Math.min(REBROADCAST_MS, left));
        if (receipt) break;
        // Not seen for a while: send the recorded bytes again (a lost broadcast heals here).
        const [row] = await db
          .select({ raw: relayedTransactions.rawTransaction })
          .from(relayedTransactions)
          .where(eq(relayedTransactions.txHash, txHash));
        if (row) await broadcast(row.raw as Hex).catch(() => {});
      }
      await record(txHash, receipt);
      return receipt;
    },

    async resume() {
      const open = await db
        .select()
        .from(outbox)
        .where(and(ours, eq(outbox.status, "signed")))
        .orderBy(outbox.nonce);
      if (open.length === 0) return 0;
      const chainNonce = await publicClient.getTransactionCount({ address, blockTag: "latest" });
      const sentAgain: Hex[] = [];
      for (const row of open) {
        const txHash = row.txHash as Hex;
        const receipt = await publicClient.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
        if (receipt) {
          await record(txHash, receipt);
        } else if (row.nonce < chainNonce) {
          // Its nonce is used and it is not mined: another transaction took the nonce.
          await db.update(outbox).set({ status: "dropped", updatedAt: new Date() }).where(eq(outbox.id, row.id));
        } else {
          await broadcast(row.rawTransaction as Hex);
          sentAgain.push(txHash);
        }
      }
      // What was sent again is recorded before resume answers if it is mined within
      // RESUME_WAIT_MS (at once on a chain that mines on send), so whoever resumed sees it
      // finished; a row still waiting stays `signed` and the next resume records it.
      await Promise.all(
        sentAgain.map(async (txHash) => {
          const receipt =
            (await publicClient.getTransactionReceipt({ hash: txHash }).catch(() => undefined)) ??
            (await nextReceipt(txHash, RESUME_WAIT_MS));
          if (receipt) await record(txHash, receipt);
        }),
      );
      return open.length;
    },
  };
}
