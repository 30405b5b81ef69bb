import { and, eq, inArray, isNotNull, lt, or, sql } from "drizzle-orm";
import { type Address, getAddress, type Hex } from "viem";
import { KeyedQueue } from "../../chain/keyed-queue.ts";
import type { Database, DbTransaction } from "../../db/client.ts";
import { relayedTransactions, balanceReservations as reservations } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { ConflictError, InsufficientBalanceError } from "../shared/errors.ts";

/*
 * A wallet's USDC reserved for its sends in flight. Every send that spends a wallet's USDC through
 * the relayer (a hosted agent's escrow funding and withdrawal, an external buyer's relayed
 * authorization) first reserves its amount, under a Postgres lock per wallet shared by every API
 * process: the check compares the chain's balance with the reservations still live, so of
 * concurrent sends that do not all fit, the last ones are refused (402) before anything is signed,
 * and the relayer never mines one that reverts for want of funds.
 *
 * A reservation ends:
 * - when its send is mined (the balance shows it then): deleted by the request once settled, or
 *   found mined by the next check of the wallet, which compares the receipt's block with the
 *   block its balance was read at;
 * - when its send was refused, failed before it was signed, reverted or was dropped (the outbox
 *   says so, or the chain instance it was sent on is gone);
 * - when it was never tied to a send within UNSIGNED_LIFETIME (its process died before signing):
 *   a send that comes later finds it gone and is not made.
 * So a crash never blocks a wallet: what was signed heals with the outbox (the keeper's
 * reconciliation sends it or marks it dropped), what was not lapses.
 */

/** How long a reservation not yet tied to a signed send counts: signing takes seconds. */
const UNSIGNED_LIFETIME = "5 minutes";

/**
 * A wallet's sends reserve one at a time per database pool (one a process): one connection waits
 * for the wallet's lock, not one per request.
 */
const turnsOfPool = new WeakMap<Database, KeyedQueue>();

/** What a send will take from a wallet. */
export interface Spend {
  wallet: Address;
  amountWei: bigint;
  /** What it pays for: "fund", "withdraw". */
  purpose: string;
}

/** A reservation its holder ties to the send that spends it. */
export interface HeldReservation {
  /**
   * Ties the reservation to `txHash`, in the outbox's database transaction (the relayer's
   * `record`): one that lapsed meanwhile throws, so nothing is recorded or sent.
   */
  attach(tx: DbTransaction, txHash: Hex): Promise<void>;
}

/** The send a reservation lapsed before: nothing was sent; the caller may try again (409). */
export class ReservationLapsedError extends ConflictError {
  constructor(wallet: Address) {
    super(
      `The balance reservation of ${wallet} lapsed before its send was signed; nothing was sent, try again`,
      { wallet_address: wallet },
      "reservation_lapsed",
    );
  }
}

type LiveReservation = {
  id: string;
  amountWei: string;
  txHash: string | null;
  expired: boolean;
  sendStatus: string | null;
  sendBlock: string | null;
  sendChainInstance: string | null;
};

export function balanceReservations(deps: Pick<Deps, "db" | "chain" | "relayer">) {
  const { db, chain, relayer } = deps;
  const turns = turnsOfPool.get(db) ?? new KeyedQueue();
  turnsOfPool.set(db, turns);

  /**
   * Whether `row` still holds money the balance read at `block` does not show spent: its send is
   * not signed yet, or signed and not mined by then.
   */
  async function stillHolds(row: LiveReservation, block: bigint): Promise<boolean> {
    if (!row.txHash) return !row.expired;
    // Tied in the outbox's own transaction, so its row is there; without one, it lapses as unsigned.
    if (!row.sendStatus) return !row.expired;
    // Sent on a chain that is gone (a restarted local node): nothing of it will be mined here.
    if (row.sendChainInstance !== relayer.chainInstance) return false;
    // Reverted or dropped: it spent nothing.
    if (row.sendStatus === "reverted" || row.sendStatus === "dropped") return false;
    if (row.sendStatus === "mined") return BigInt(row.sendBlock ?? "0") > block;
    // Signed: the outbox has not recorded a receipt yet, the chain may have one.
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: row.txHash as Hex }).catch(() => undefined);
    return !receipt || receipt.blockNumber > block;
  }

  /** Reserves `spend` on its wallet, or throws InsufficientBalanceError (402): nothing is held then. */
  async function reserve(spend: Spend): Promise<string> {
    const wallet = getAddress(spend.wallet);
    return db.transaction(async (tx) => {
      // Checks: under the wallet's lock, against what the chain holds and the reservations still live.
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`usdc-reservations:${chain.chainId}:${wallet}`}))`);
      const { usdcWei, blockNumber } = await chain.usdcBalanceNow(wallet);
      const live = await tx
        .select({
          id: reservations.id,
          amountWei: reservations.amountWei,
          txHash: reservations.txHash,
          expired: sql<boolean>`${reservations.expiresAt} < now()`,
          sendStatus: relayedTransactions.status,
          sendBlock: relayedTransactions.blockNumber,
          sendChainInstance: relayedTransactions.chainInstance,
        })
        .from(reservations)
        .leftJoin(relayedTransactions, eq(relayedTransactions.txHash, reservations.txHash))
        .where(and(eq(reservations.chainId, chain.chainId), eq(reservations.walletAddress, wallet)));
      let reserved = 0n;
      const ended: string[] = [];
      for (const row of live) {
        if (await stillHolds(row, blockNumber)) reserved += BigInt(row.amountWei);
        else ended.push(row.id);
      }
      if (ended.length > 0) {
        // One not yet tied to a send is only deleted if it has lapsed still (it may be tied meanwhile).
        await tx
          .delete(reservations)
          .where(
            and(
              inArray(reservations.id, ended),
              or(isNotNull(reservations.txHash), lt(reservations.expiresAt, sql`now()`)),
            ),
          );
      }
      const free = usdcWei > reserved ? usdcWei - reserved : 0n;
      if (spend.amountWei > free) {
        throw new InsufficientBalanceError(
          spend.amountWei,
          free,
          wallet,
          chain.chainId,
          chain.deployment.contracts.USDC.address,
          usdcWei - free,
        );
      }
      // Effects: the reservation, committed before anything is signed.
      const [created] = await tx
        .insert(reservations)
        .values({
          chainId: chain.chainId,
          walletAddress: wallet,
          amountWei: spend.amountWei.toString(),
          purpose: spend.purpose,
          expiresAt: sql`now() + ${UNSIGNED_LIFETIME}::interval`,
        })
        .returning({ id: reservations.id });
      return (created as { id: string }).id;
    });
  }

  /**
   * Ends the reservation `id` as its holder saw it end: settled (mined), or failed, where one tied
   * to a send stays until the next check finds that send mined, reverted or dropped.
   */
  async function end(id: string, settled: boolean): Promise<void> {
    await db
      .delete(reservations)
      .where(settled ? eq(reservations.id, id) : and(eq(reservations.id, id), sql`${reservations.txHash} IS NULL`))
      // Left behind, it ends at the next check of the wallet all the same.
      .catch(() => {});
  }

  return {
    /**
     * Runs `send` holding a reservation of `spend`: 402 at once when the wallet's balance, less
     * what its sends in flight will spend, does not cover it. `send` ties the reservation to its
     * transaction in the outbox's record ({@link HeldReservation.attach}) and returns once that
     * transaction is mined: the reservation ends then.
     */
    async hold<T>(spend: Spend, send: (held: HeldReservation) => Promise<T>): Promise<T> {
      const wallet = getAddress(spend.wallet);
      const id = await turns.run(`${chain.chainId}:${wallet}`, () => reserve(spend));
      const held: HeldReservation = {
        async attach(tx, txHash) {
          const tied = await tx
            .update(reservations)
            .set({ txHash })
            .where(and(eq(reservations.id, id), sql`${reservations.txHash} IS NULL`))
            .returning({ id: reservations.id });
          if (tied.length === 0) throw new ReservationLapsedError(wallet);
        },
      };
      let settled = false;
      try {
        const result = await send(held);
        settled = true;
        return result;
      } finally {
        await end(id, settled);
      }
    },
  };
}

export type BalanceReservations = ReturnType<typeof balanceReservations>;
