import { and, eq, inArray, isNotNull, like, lt, or, sql } from "drizzle-orm";
import { type Address, getAddress, type Hex } from "viem";
import { KeyedQueue } from "../../chain/keyed-queue.ts";
import type { Database, DbTransaction } from "../../db/client.ts";
import { relayedTransactions, balanceReservations as reservations } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { ConflictError, InsufficientBalanceError } from "../shared/errors.ts";
import { type ApprovalView, requestApproval } from "./approval-requests.ts";
import { type CappedMove, judgeMove, lockAndReadLimits, UNSIGNED_SPEND_LIFETIME } from "./spending-caps.ts";

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
 *
 * An x402 payment a hosted agent signs for another service (x402-signing.ts) is no send of ours:
 * its payee settles it, if ever, until the authorization's validBefore. Its reservation (purpose
 * `x402:<nonce>`) holds until then, or until the token records the nonce used by the block the
 * balance was read at (the balance shows the transfer from then on).
 *
 * A hosted agent's move is also checked against its owner's spending caps at that same point,
 * under the same lock (spending-caps.ts): over a cap it is refused (402 `spending_limit`), above
 * the approval threshold it waits for the owner (approval-requests.ts) and nothing is reserved;
 * otherwise its reservation is written with a row of the agent's spending, tied to the send with it.
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

/** An EIP-3009 authorization the wallet signed for someone else to submit (an x402 payment). */
export interface SignedAuthorization {
  nonce: Hex;
  /** Unix seconds: the token refuses it from then on. */
  validBefore: bigint;
}

/** The purpose of an x402 payment's reservation: it names the authorization's nonce. */
const X402_PURPOSE = /^x402:(0x[0-9a-f]{64})$/;

const authorizationStateAbi = [
  {
    type: "function",
    name: "authorizationState",
    stateMutability: "view",
    inputs: [
      { name: "authorizer", type: "address" },
      { name: "nonce", type: "bytes32" },
    ],
    outputs: [{ type: "bool" }],
  },
] as const;

/** The rows a reservation holds: itself, and the agent's spending row of a capped move. */
interface Reserved {
  reservationId: string;
  spendId?: string;
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
  purpose: string;
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
  async function stillHolds(row: LiveReservation, wallet: Address, block: bigint): Promise<boolean> {
    const authorization = X402_PURPOSE.exec(row.purpose);
    if (authorization) {
      if (row.expired) return false;
      // Used by `block`: the balance read there shows its transfer.
      const used = await chain.publicClient.readContract({
        address: chain.deployment.contracts.USDC.address as Address,
        abi: authorizationStateAbi,
        functionName: "authorizationState",
        args: [wallet, authorization[1] as Hex],
        blockNumber: block,
      });
      return !used;
    }
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

  /**
   * Reserves `spend` on its wallet, or throws InsufficientBalanceError (402): nothing is held then.
   * A capped `move` is judged first under the same lock: SpendingLimitError (402) over a cap, and
   * above the approval threshold the approval it waits for, with nothing reserved.
   */
  async function reserve(
    spend: Spend,
    move?: CappedMove,
    signed?: SignedAuthorization,
  ): Promise<Reserved | { approval: ApprovalView }> {
    const wallet = getAddress(spend.wallet);
    return db.transaction(async (tx) => {
      // Checks: under the wallet's lock, the caps (read with the lock), then what the chain holds
      // and the reservations still live.
      const lockKey = `usdc-reservations:${chain.chainId}:${wallet}`;
      let verdict: "move" | "approval" = "move";
      if (move)
        verdict = await judgeMove(tx, move, await lockAndReadLimits(tx, lockKey, move.agentId), spend.amountWei);
      else await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${lockKey}))`);
      const { usdcWei, blockNumber } = await chain.usdcBalanceNow(wallet);
      const live = await tx
        .select({
          id: reservations.id,
          amountWei: reservations.amountWei,
          purpose: reservations.purpose,
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
        if (await stillHolds(row, wallet, blockNumber)) reserved += BigInt(row.amountWei);
        else ended.push(row.id);
      }
      if (ended.length > 0) {
        // One not yet tied to a send is only deleted if it has lapsed still (it may be tied meanwhile);
        // an x402 payment's, used or expired, is over for good.
        await tx
          .delete(reservations)
          .where(
            and(
              inArray(reservations.id, ended),
              or(
                isNotNull(reservations.txHash),
                lt(reservations.expiresAt, sql`now()`),
                like(reservations.purpose, "x402:%"),
              ),
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
      // Effects: the approval asked for, or the reservation (and the agent's spending), committed
      // before anything is signed.
      if (move && verdict === "approval") return { approval: await requestApproval(tx, move, spend.amountWei) };
      const expiresAt = signed
        ? sql`to_timestamp(${signed.validBefore.toString()}::bigint)`
        : sql`now() + ${UNSIGNED_LIFETIME}::interval`;
      const purpose = signed ? `x402:${signed.nonce.toLowerCase()}` : spend.purpose;
      if (move) {
        const approvalId = move.origin.kind === "approval" ? move.origin.approvalId : null;
        const { rows } = await tx.execute<{ reservation_id: string; spend_id: string }>(sql`
          WITH reservation AS (
            INSERT INTO app.balance_reservations (chain_id, wallet_address, amount_wei, purpose, expires_at)
            VALUES (${chain.chainId}, ${wallet}, ${spend.amountWei.toString()}, ${purpose}, ${expiresAt})
            RETURNING id),
          spent AS (
            INSERT INTO app.agent_spends (agent_id, action, amount_wei, approval_id)
            VALUES (${move.agentId}, ${move.action}, ${spend.amountWei.toString()}, ${approvalId})
            RETURNING id)
          SELECT (SELECT id FROM reservation) AS reservation_id, (SELECT id FROM spent) AS spend_id`);
        const row = rows[0] as { reservation_id: string; spend_id: string };
        return { reservationId: row.reservation_id, spendId: row.spend_id };
      }
      const [created] = await tx
        .insert(reservations)
        .values({
          chainId: chain.chainId,
          walletAddress: wallet,
          amountWei: spend.amountWei.toString(),
          purpose,
          expiresAt,
        })
        .returning({ id: reservations.id });
      return { reservationId: (created as { id: string }).id };
    });
  }

  /**
   * Ends the reservation as its holder saw it end: settled (mined), or failed, where one tied to a
   * send stays until the next check finds that send mined, reverted or dropped. A failed move's
   * spending row goes with it unless it was signed (the window then reads its send's fate).
   */
  async function end({ reservationId, spendId }: Reserved, settled: boolean): Promise<void> {
    const released =
      spendId && !settled
        ? sql`, released AS (DELETE FROM app.agent_spends WHERE id = ${spendId} AND tx_hash IS NULL)`
        : sql``;
    await db
      .execute(sql`
        WITH ended AS (
          DELETE FROM app.balance_reservations
          WHERE id = ${reservationId} ${settled ? sql`` : sql`AND tx_hash IS NULL`})
        ${released}
        SELECT 1`)
      // Left behind, it ends at the next check of the wallet all the same (an unsigned row lapses).
      .catch(() => {});
  }

  /**
   * Holds a reservation of `spend` (and judges a capped `move`) while `send` runs: 402 at once when
   * the wallet's balance, less what its sends in flight will spend, does not cover it; the
   * approval when the move waits for its owner (send is not run).
   */
  async function run<T>(
    spend: Spend,
    move: CappedMove | undefined,
    send: (held: HeldReservation) => Promise<T>,
  ): Promise<{ sent: T } | { approval: ApprovalView }> {
    const wallet = getAddress(spend.wallet);
    const reserved = await turns.run(`${chain.chainId}:${wallet}`, () => reserve(spend, move));
    if ("approval" in reserved) return reserved;
    const held: HeldReservation = {
      async attach(tx, txHash) {
        // The reservation and the spending row are tied together, in the outbox's transaction;
        // either one lapsed meanwhile (unsigned past its lifetime): nothing is recorded or sent.
        const spent = reserved.spendId
          ? sql`, spent AS (UPDATE app.agent_spends SET tx_hash = ${txHash}
              WHERE id = ${reserved.spendId} AND tx_hash IS NULL
                AND created_at > now() - ${UNSIGNED_SPEND_LIFETIME}::interval RETURNING id)`
          : sql``;
        const { rows } = await tx.execute<{ tied: number; spent: number }>(sql`
          WITH tied AS (UPDATE app.balance_reservations SET tx_hash = ${txHash}
            WHERE id = ${reserved.reservationId} AND tx_hash IS NULL RETURNING id)
          ${spent}
          SELECT (SELECT count(*) FROM tied)::int AS tied,
                 ${reserved.spendId ? sql`(SELECT count(*) FROM spent)::int` : sql`1`} AS spent`);
        if (rows[0]?.tied !== 1 || rows[0]?.spent !== 1) throw new ReservationLapsedError(wallet);
      },
    };
    let settled = false;
    try {
      const result = await send(held);
      settled = true;
      return { sent: result };
    } finally {
      await end(reserved, settled);
    }
  }

  return {
    /**
     * Runs `send` holding a reservation of `spend`: 402 at once when the wallet's balance, less
     * what its sends in flight will spend, does not cover it. `send` ties the reservation to its
     * transaction in the outbox's record ({@link HeldReservation.attach}) and returns once that
     * transaction is mined: the reservation ends then.
     */
    async hold<T>(spend: Spend, send: (held: HeldReservation) => Promise<T>): Promise<T> {
      const outcome = await run(spend, undefined, send);
      if ("approval" in outcome) throw new Error("a move without caps never waits for an approval");
      return outcome.sent;
    },

    /**
     * As {@link hold}, for a move the service signs for a hosted agent: judged against the agent's
     * spending caps under the wallet's lock first (402 `spending_limit` over one), and recorded in
     * its spending. Above the approval threshold, the approval it waits for, and nothing sent.
     */
    holdCapped<T>(
      spend: Spend,
      move: CappedMove,
      send: (held: HeldReservation) => Promise<T>,
    ): Promise<{ sent: T } | { approval: ApprovalView }> {
      return run(spend, move, send);
    },

    /**
     * Reserves what an authorization `signed` for someone else to submit will take (an x402
     * payment), judged against `move`'s caps first as {@link holdCapped}: held until the token
     * records its nonce used or its validBefore passes, and counted in the agent's spending from
     * now. Nothing is sent: the caller hands the signature out only once this returns.
     */
    async reserveSigned(
      spend: Spend,
      move: CappedMove,
      signed: SignedAuthorization,
    ): Promise<"reserved" | { approval: ApprovalView }> {
      const wallet = getAddress(spend.wallet);
      const reserved = await turns.run(`${chain.chainId}:${wallet}`, () => reserve(spend, move, signed));
      return "approval" in reserved ? reserved : "reserved";
    },
  };
}

export type BalanceReservations = ReturnType<typeof balanceReservations>;
