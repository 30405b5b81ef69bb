import pg from "pg";

/**
 * One hosted wallet's sends at a time across every API process on the database: a Postgres
 * session lock per wallet, held from the read of its balance until its transaction is broadcast,
 * so that a top-up sized on that balance is not spent by another process's send in between. The
 * locks wait and are held on a few connections of their own: the holder needs the main pool for
 * its sends meanwhile, and holders or waiters must never take all of it. Those connections close
 * when idle, and never keep the process alive.
 */
export interface WalletLocks {
  /** Runs `task` while holding the lock of `address` (waits for it first). */
  run<T>(address: string, task: () => Promise<T>): Promise<T>;
}

/** Wallets whose lock a process may hold or wait for at once; the next wait for a connection. */
const LOCK_CONNECTIONS = 4;
/** A top-up is two sends and a receipt: minutes would mean something is stuck. */
const LOCK_WAIT_MS = 120_000;

export function createWalletLocks(databaseUrl: string, scope: string): WalletLocks {
  let pool: pg.Pool | undefined;
  function connections(): pg.Pool {
    if (!pool) {
      pool = new pg.Pool({
        connectionString: databaseUrl,
        max: LOCK_CONNECTIONS,
        connectionTimeoutMillis: LOCK_WAIT_MS,
        query_timeout: LOCK_WAIT_MS,
        idleTimeoutMillis: 1_000,
        allowExitOnIdle: true,
      });
      // A connection Postgres drops must not end the process: the lock ends with it.
      pool.on("error", () => {});
      pool.on("connect", (client) => {
        client.on("error", () => {});
      });
    }
    return pool;
  }

  return {
    async run(address, task) {
      const client = await connections().connect();
      const key = `hosted-wallet:${scope}:${address.toLowerCase()}`;
      let unlocked = false;
      try {
        await client.query("SELECT pg_advisory_lock(hashtext($1))", [key]);
        try {
          return await task();
        } finally {
          await client.query("SELECT pg_advisory_unlock(hashtext($1))", [key]).then(
            () => {
              unlocked = true;
            },
            () => {},
          );
        }
      } finally {
        // A connection that may hold the lock still (its unlock failed, or its wait timed out here
        // and not in Postgres) is closed: the lock goes with it.
        client.release(!unlocked);
      }
    },
  };
}
