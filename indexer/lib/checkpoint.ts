/**
 * How far the indexer has got. Ponder keeps one checkpoint per chain in `_ponder_checkpoint` and
 * publishes it with the other views (chain._ponder_checkpoint). A checkpoint is a 75-digit string:
 * block timestamp (10), chain id (16), block number (16), transaction index (16), event type (1),
 * event index (16). Its `latest_checkpoint` moves in the same database transaction as the rows of
 * the block, so a reader who sees block N indexed also sees every row of block N.
 */

/** The views schema `ponder start --views-schema` publishes to. */
export const VIEWS_SCHEMA = "chain";

/** Ponder NOTIFYs this channel after every checkpoint change (its live-query trigger). */
export const CHECKPOINT_CHANNEL = `${VIEWS_SCHEMA}_live_query`;

/** Last indexed block per chain: rows of (chain_id, block_number, block_timestamp), all bigint. */
export const INDEXED_BLOCKS_SQL = `SELECT chain_id,
  substring(latest_checkpoint from 27 for 16)::bigint AS block_number,
  substring(latest_checkpoint from 1 for 10)::bigint AS block_timestamp
FROM "${VIEWS_SCHEMA}"."_ponder_checkpoint"`;

export interface IndexedBlock {
  chainId: number;
  blockNumber: bigint;
  blockTimestamp: bigint;
}

/** The block a checkpoint string points at. */
export function decodeCheckpoint(checkpoint: string): IndexedBlock {
  if (!/^\d{75}$/.test(checkpoint)) throw new Error(`not a Ponder checkpoint: ${checkpoint}`);
  return {
    blockTimestamp: BigInt(checkpoint.slice(0, 10)),
    chainId: Number(checkpoint.slice(10, 26)),
    blockNumber: BigInt(checkpoint.slice(26, 42)),
  };
}

/** Runs one SQL statement and returns its rows (pg's `client.query` fits, as does a pool's). */
export type Query = (sql: string) => Promise<{ rows: Record<string, unknown>[] }>;

/**
 * The indexer's last block on `chainId`, or undefined while it has none (not started, or the
 * views are not published yet).
 */
export async function indexedBlock(query: Query, chainId: number): Promise<bigint | undefined> {
  let rows: Record<string, unknown>[];
  try {
    ({ rows } = await query(`${INDEXED_BLOCKS_SQL} WHERE chain_id = ${Number(chainId)}`));
  } catch (error) {
    // 42P01 undefined_table, 3F000 invalid_schema_name: the views do not exist yet.
    const code = (error as { code?: string }).code;
    if (code === "42P01" || code === "3F000") return undefined;
    throw error;
  }
  const value = rows[0]?.block_number;
  return value === undefined || value === null ? undefined : BigInt(value as string | number | bigint);
}

/**
 * Waits until the indexer has processed `blockNumber` on `chainId`: the API calls this after a
 * write that reached the chain, so that its answer and the next read agree. Returns false if the
 * indexer has not got there within `timeoutMs`.
 */
export async function waitForIndexedBlock(
  query: Query,
  chainId: number,
  blockNumber: bigint,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<boolean> {
  const until = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const indexed = await indexedBlock(query, chainId);
    if (indexed !== undefined && indexed >= blockNumber) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}
