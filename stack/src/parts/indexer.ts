/**
 * The indexer: `ponder start` on INDEXER_PORT, into a schema named after this build and this
 * chain instance (or DATABASE_SCHEMA), views in schema "chain". Ready once the views show the chain
 * as it is now. Started again in place when it dies, and after Postgres was: Ponder commits with
 * synchronous_commit off, so its last blocks may have died with Postgres while the running indexer
 * counts them as done; started again, it resumes from the checkpoint the database kept. Ponder's
 * lock on the schema is the indexer helper's business (@agent-marketplace/indexer/process).
 */
import { readFileSync } from "node:fs";
import type { IndexerProcess } from "@agent-marketplace/indexer/process";
import { type Settings, shown } from "../settings.ts";
import { type Part, StartError, within } from "../supervisor.ts";
import type { Contracts } from "./contracts.ts";
import type { Database } from "./postgres.ts";

export interface Indexer extends Part {
  readonly url: string;
}

/** Ponder's backfill of a long chain may take hours. */
const READY_TIMEOUT_MS = 24 * 60 * 60 * 1000;
/** Once Ponder is ready, the last blocks are indexed live: this is plenty. */
const CAUGHT_UP_TIMEOUT_MS = 120_000;
/** How long Ponder has to stop on SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 20_000;

export function ponderIndexer(settings: Settings, inputs: { database: Database; contracts: Contracts }): Indexer {
  const log = settings.logs.indexer;
  const port = settings.ports.indexer;
  return {
    name: "The indexer",
    shortName: "indexer",
    log,
    ports: [{ name: "indexer", variable: "INDEXER_PORT", port }],
    restartsAfter: { part: inputs.database, message: "Starting the indexer again on the recovered database..." },
    url: `http://127.0.0.1:${port}`,
    async start() {
      const { schemaNameFor, startIndexer } = await import("@agent-marketplace/indexer/process");
      const { createPublicClient, http } = await import("viem");
      const { rpcUrl, chainId, local, deployment, deploymentFile } = inputs.contracts.deployed();
      const databaseUrl = inputs.database.url();
      const startBlock = await createPublicClient({ transport: http(rpcUrl) }).getBlock({
        blockNumber: BigInt(deployment.contracts.AgentEscrow.startBlock),
      });
      const schema = settings.databaseSchema ?? schemaNameFor(readFileSync(deploymentFile, "utf8"), startBlock.hash);
      console.log(`Starting the indexer on port ${port} (schema ${schema}, log: ${shown(log)})...`);
      let current: IndexerProcess = startIndexer({
        databaseUrl,
        schema,
        chainId,
        rpcUrl,
        deploymentsDir: settings.deploymentsDir,
        port,
        logFile: log,
      });
      return {
        process: current.process,
        ready: caughtUp({ indexer: current, databaseUrl, rpcUrl, chainId, schema, local, log }),
        async stop() {
          const stopped = await within(
            current.stop("SIGTERM").then(() => true),
            STOP_TIMEOUT_MS,
          );
          if (!stopped) await current.stop("SIGKILL");
          await current.releaseLock().catch((error: Error) => {
            console.error(`  could not release the indexer's lock (${error.message}); it expires in a minute`);
          });
        },
        async restart() {
          current = await current.replace();
          return current.process;
        },
      };
    },
  };
}

/**
 * Until Ponder is ready (its backfill done) and the views show the chain's head as it was then;
 * on the local chain, the schemas of earlier chains are dropped after.
 */
async function caughtUp(at: {
  indexer: IndexerProcess;
  databaseUrl: string;
  rpcUrl: string;
  chainId: number;
  schema: string;
  local: boolean;
  log: string;
}): Promise<void> {
  await at.indexer.ready(READY_TIMEOUT_MS).catch((error: Error) => {
    throw new StartError(`${error.message}; see ${shown(at.log)}`);
  });
  const { dropStaleIndexerSchemas } = await import("@agent-marketplace/indexer/process");
  const { waitForIndexedBlock } = await import("@agent-marketplace/indexer");
  const { createPublicClient, http } = await import("viem");
  const { default: pg } = await import("pg");
  const head = await createPublicClient({ transport: http(at.rpcUrl) }).getBlockNumber();
  const db = new pg.Client({ connectionString: at.databaseUrl });
  await db.connect();
  try {
    const query = (sql: string) => db.query(sql);
    if (!(await waitForIndexedBlock(query, at.chainId, head, { timeoutMs: CAUGHT_UP_TIMEOUT_MS }))) {
      throw new StartError(`The indexer did not reach block ${head}; see ${shown(at.log)}`);
    }
    if (at.local) {
      const dropped = await dropStaleIndexerSchemas(query, at.schema);
      if (dropped.length > 0) console.log(`Dropped the schemas of earlier local chains: ${dropped.join(", ")}`);
    }
  } finally {
    await db.end();
  }
}
