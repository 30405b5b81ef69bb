import { ESCROW_STATES, type EscrowState, indexedBlock } from "@agent-marketplace/indexer";
import { sql } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import type { Deps } from "../../deps.ts";
import { sharedWhileRunning, timeBoxed } from "./time-boxed.ts";

/*
 * The figures an operator watches (GET /metrics), read from Postgres and the chain when asked, so
 * any API process answers them alike, wherever the keeper, the notifier and the webhook sender run.
 * Each part is a query or two on an index, or a few RPC calls, and has OPERATIONS_PART_TIMEOUT_MS:
 * one that fails or is late is reported as such and the others still are.
 */

/** The most a part of the figures may take before it is reported as not read. */
export const OPERATIONS_PART_TIMEOUT_MS = 2_000;

/**
 * Whose sends the outbox holds: the platform relayer (the escrow's operator, it pays hosted
 * agents' gas), the arbiter (its rulings), and hosted agents' own wallets, counted together.
 */
export const OUTBOX_ACCOUNTS = ["relayer", "arbiter", "hosted"] as const;
export type OutboxAccount = (typeof OUTBOX_ACCOUNTS)[number];
/** The service's own sending accounts, whose nonces and balances are read on chain. */
export type ServiceAccount = Exclude<OutboxAccount, "hosted">;

export interface OutboxFigures {
  /** Rows still `signed` (no receipt recorded yet), per account; every account present. */
  pending: Record<OutboxAccount, number>;
  /** Seconds since the oldest of them was signed, per account that has one. */
  oldestPendingSeconds: Partial<Record<OutboxAccount, number>>;
  /** The highest nonce each service account has used (any status), if it has sent anything. */
  lastNonce: Partial<Record<ServiceAccount, number>>;
}

export interface AccountOnChain {
  address: Address;
  /** The nonce of its next transaction by the chain's latest block: how many it has had mined. */
  latestNonce: number;
  /** The same, counting what the node holds in its pool. */
  pendingNonce: number;
  balanceWei: bigint;
}

export interface WebhookFigures {
  /** Deliveries waiting for an attempt: due or not, their endpoint paused or not. */
  pending: number;
  /** Pending deliveries the sender would send now: due, their endpoint neither paused nor waiting. */
  due: number;
  /** How long the longest-waiting of those has been due; absent when none is. */
  oldestDueSeconds?: number;
  /** Deliveries given up (attempts exhausted, or the webhook removed). */
  failed: number;
  /** Endpoints paused after too many failures in a row. */
  pausedEndpoints: number;
}

/** Payouts the escrow credited because the token refused them, not yet withdrawn (domain/platform/credits.ts). */
export interface CreditFigures {
  /** The escrow's totalCredits(), as indexed, in USDC's base units. */
  owedWei: bigint;
  /** Accounts owed something. */
  accounts: number;
}

/** What one part answered, or that it did not (failed or late), and how long it took. */
export type Part<T> = { ok: true; value: T; seconds: number } | { ok: false; seconds: number; error: string };

export interface OperationsFigures {
  escrows: Part<Record<EscrowState, number>>;
  credits: Part<CreditFigures>;
  outbox: Part<OutboxFigures>;
  accounts: Part<Partial<Record<ServiceAccount, AccountOnChain>>>;
  webhooks: Part<WebhookFigures>;
  /** The indexer's checkpoint block; undefined while it has none. */
  indexer: Part<bigint | undefined>;
  /** The chain's newest block, as the node answers. */
  chainHead: Part<bigint>;
}

/** Runs `read` within the part's time, never throwing. */
async function part<T>(what: string, read: () => Promise<T>): Promise<Part<T>> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  try {
    const value = await timeBoxed(read(), OPERATIONS_PART_TIMEOUT_MS, what);
    return { ok: true, value, seconds: seconds() };
  } catch (error) {
    return { ok: false, seconds: seconds(), error: error instanceof Error ? error.message : String(error) };
  }
}

export function operationsUseCases(deps: Pick<Deps, "db" | "chain" | "relayer" | "arbiterRelayer">) {
  const { db, chain } = deps;
  const { publicClient, chainId } = chain;
  const { chainInstance } = deps.relayer;
  const services: [ServiceAccount, Address][] = [["relayer", deps.relayer.address]];
  if (deps.arbiterRelayer) services.push(["arbiter", deps.arbiterRelayer.address]);
  const accountOf = (address: string): OutboxAccount => {
    const checksummed = getAddress(address);
    return services.find(([, own]) => own === checksummed)?.[0] ?? "hosted";
  };

  /**
   * Open escrows by the status index (few: they end), settled ones from the indexer's totals (one
   * row): each escrow is released, refunded or resolved once, so those totals are the counts of
   * escrows in those states, without counting every escrow ever funded.
   */
  async function escrowsByState(): Promise<Record<EscrowState, number>> {
    const { rows } = await db.execute<Record<EscrowState, number | null>>(sql`
      SELECT
        (SELECT count(*)::int FROM chain.escrow WHERE status = 'FUNDED' AND chain_id = ${chainId}) AS "FUNDED",
        (SELECT count(*)::int FROM chain.escrow WHERE status = 'DELIVERED' AND chain_id = ${chainId}) AS "DELIVERED",
        (SELECT count(*)::int FROM chain.escrow WHERE status = 'DISPUTED' AND chain_id = ${chainId}) AS "DISPUTED",
        (SELECT released FROM chain.escrow_totals WHERE chain_id = ${chainId}) AS "RELEASED",
        (SELECT refunded FROM chain.escrow_totals WHERE chain_id = ${chainId}) AS "REFUNDED",
        (SELECT resolved FROM chain.escrow_totals WHERE chain_id = ${chainId}) AS "RESOLVED"`);
    const row = rows[0];
    return Object.fromEntries(ESCROW_STATES.map((state) => [state, Number(row?.[state] ?? 0)])) as Record<
      EscrowState,
      number
    >;
  }

  /**
   * What the escrow owes in credits: the indexer's total (one row) and the accounts owed, from
   * chain.credit (one row per account ever credited: few, and a credit is paid out by the keeper's
   * next round once the token accepts it).
   */
  async function credits(): Promise<CreditFigures> {
    const { rows } = await db.execute<{ owed: string | null; accounts: number }>(sql`
      SELECT
        (SELECT credits::text FROM chain.escrow_totals WHERE chain_id = ${chainId}) AS owed,
        (SELECT count(*)::int FROM chain.credit WHERE chain_id = ${chainId} AND owed > 0) AS accounts`);
    const row = rows[0];
    return { owedWei: BigInt(row?.owed ?? 0), accounts: row?.accounts ?? 0 };
  }

  /** The outbox of this chain instance: its `signed` rows (a partial index) and the service accounts' last nonces. */
  async function outbox(): Promise<OutboxFigures> {
    const [pendingRows, nonceRows] = await Promise.all([
      db.execute<{ from_address: string; pending: number; oldest_seconds: number }>(sql`
        SELECT from_address, count(*)::int AS pending,
               extract(epoch FROM now() - min(created_at))::float8 AS oldest_seconds
        FROM app.relayed_transactions
        WHERE chain_instance = ${chainInstance} AND status = 'signed'
        GROUP BY from_address`),
      Promise.all(
        services.map(async ([account, address]) => {
          const { rows } = await db.execute<{ last: number | null }>(sql`
            SELECT max(nonce) AS last FROM app.relayed_transactions
            WHERE chain_instance = ${chainInstance} AND from_address = ${address}`);
          return [account, rows[0]?.last ?? undefined] as const;
        }),
      ),
    ]);
    const figures: OutboxFigures = {
      pending: { relayer: 0, arbiter: 0, hosted: 0 },
      oldestPendingSeconds: {},
      lastNonce: {},
    };
    for (const row of pendingRows.rows) {
      const account = accountOf(row.from_address);
      figures.pending[account] += row.pending;
      const oldest = Number(row.oldest_seconds);
      figures.oldestPendingSeconds[account] = Math.max(figures.oldestPendingSeconds[account] ?? 0, oldest);
    }
    for (const [account, last] of nonceRows) if (last !== undefined) figures.lastNonce[account] = Number(last);
    return figures;
  }

  /** The service accounts' nonces (latest and pending) and ETH, from the node: three calls each. */
  async function accounts(): Promise<Partial<Record<ServiceAccount, AccountOnChain>>> {
    const read = await Promise.all(
      services.map(async ([account, address]) => {
        const [latestNonce, pendingNonce, balanceWei] = await Promise.all([
          publicClient.getTransactionCount({ address, blockTag: "latest" }),
          publicClient.getTransactionCount({ address, blockTag: "pending" }),
          publicClient.getBalance({ address }),
        ]);
        return [account, { address, latestNonce, pendingNonce, balanceWei }] as const;
      }),
    );
    return Object.fromEntries(read);
  }

  /**
   * Pending deliveries by their partial index; the due ones are those the sender's claim would take
   * (webhook-sender.ts): due themselves, their endpoint not paused and past its backoff. Failed
   * deliveries and paused endpoints by partial indexes of their own.
   */
  async function webhooks(): Promise<WebhookFigures> {
    const { rows } = await db.execute<{
      pending: number;
      failed: number;
      paused: number;
      due: number;
      oldest_due_seconds: number | null;
    }>(sql`
      SELECT
        (SELECT count(*)::int FROM app.webhook_deliveries WHERE status = 'pending') AS pending,
        (SELECT count(*)::int FROM app.webhook_deliveries WHERE status = 'failed') AS failed,
        (SELECT count(*)::int FROM app.webhook_endpoints WHERE paused_at IS NOT NULL) AS paused,
        due.count AS due, due.oldest_seconds AS oldest_due_seconds
      FROM (
        SELECT count(*)::int AS count,
               extract(epoch FROM now() - min(greatest(d.next_attempt_at, e.next_attempt_at)))::float8 AS oldest_seconds
        FROM app.webhook_deliveries d JOIN app.webhook_endpoints e ON e.agent_id = d.agent_id
        WHERE d.status = 'pending' AND d.next_attempt_at <= now()
          AND e.paused_at IS NULL AND e.next_attempt_at <= now()
      ) due`);
    const row = rows[0];
    return {
      pending: row?.pending ?? 0,
      due: row?.due ?? 0,
      ...(row?.oldest_due_seconds !== null && row?.oldest_due_seconds !== undefined
        ? { oldestDueSeconds: Number(row.oldest_due_seconds) }
        : {}),
      failed: row?.failed ?? 0,
      pausedEndpoints: row?.paused ?? 0,
    };
  }

  // Each part runs once at a time however many scrapes ask: a hung one is not started again.
  const reads = {
    escrows: sharedWhileRunning(escrowsByState),
    credits: sharedWhileRunning(credits),
    outbox: sharedWhileRunning(outbox),
    accounts: sharedWhileRunning(accounts),
    webhooks: sharedWhileRunning(webhooks),
    indexer: sharedWhileRunning(() => indexedBlock((text) => db.$client.query(text), chainId)),
    chainHead: sharedWhileRunning(() => publicClient.getBlockNumber({ cacheTime: 0 })),
  };

  return {
    /** Every part, read now side by side; never throws. */
    async figures(): Promise<OperationsFigures> {
      const [escrows, creditsPart, outboxPart, accountsPart, webhooksPart, indexer, chainHead] = await Promise.all([
        part("escrows", reads.escrows),
        part("credits", reads.credits),
        part("relayer outbox", reads.outbox),
        part("service accounts on chain", reads.accounts),
        part("webhooks", reads.webhooks),
        part("indexer checkpoint", reads.indexer),
        part("chain head", reads.chainHead),
      ]);
      return {
        escrows,
        credits: creditsPart,
        outbox: outboxPart,
        accounts: accountsPart,
        webhooks: webhooksPart,
        indexer,
        chainHead,
      };
    },
  };
}

export type OperationsUseCases = ReturnType<typeof operationsUseCases>;
