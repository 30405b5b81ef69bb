/**
 * `pnpm --filter @agent-marketplace/indexer start`: the indexer for the chain of the environment
 * (see lib/target.ts: CHAIN_ID, RPC_URL, DEPLOYMENTS_DIR), into Postgres (DATABASE_URL) or
 * PGlite, views in schema "chain", Ponder's HTTP server on INDEXER_PORT (default 42069).
 *
 * The tables go to DATABASE_SCHEMA, or to a schema named after this build and this chain
 * instance (lib/indexer-process.ts, schemaNameFor): a restart of the same build resumes, a new
 * build or a fresh local chain indexes from its start block into a new schema. On the local chain,
 * schemas of earlier builds are dropped once the new one is ready.
 *
 * With NODE_ENV=production every line is JSON (Ponder's `--log-format json`, and this script's own).
 */
import { readFileSync } from "node:fs";
import { deploymentFile, deploymentsDir, LOCAL_CHAIN_ID } from "@agent-marketplace/contracts";
import pg from "pg";
import { createPublicClient, http } from "viem";
import { dropStaleIndexerSchemas, schemaNameFor, startIndexer } from "../lib/indexer-process.ts";
import { resolveIndexerTarget } from "../lib/target.ts";

const DEFAULT_PORT = 42069;
const json = process.env.NODE_ENV === "production";

/** One line of this script's own: JSON in production, like Ponder's. */
function log(msg: string, fields: Record<string, unknown> = {}) {
  console.log(json ? JSON.stringify({ level: "info", time: Date.now(), service: "indexer", msg, ...fields }) : msg);
}

const target = resolveIndexerTarget();
const deploymentJson = readFileSync(deploymentFile(target.chainId, deploymentsDir()), "utf8");
const client = createPublicClient({ transport: http(target.rpcUrl) });
const startBlock = await client.getBlock({ blockNumber: BigInt(target.contracts.AgentEscrow.startBlock) });
const schema = process.env.DATABASE_SCHEMA || schemaNameFor(deploymentJson, startBlock.hash);
const databaseUrl = process.env.DATABASE_URL || undefined;

log(`Indexing chain ${target.chainId} into schema ${schema} (views: chain)`, { chain_id: target.chainId, schema });
const indexer = startIndexer({
  databaseUrl,
  schema,
  chainId: target.chainId,
  rpcUrl: target.rpcUrl,
  port: Number(process.env.INDEXER_PORT || DEFAULT_PORT),
  ...(json && { logFormat: "json" as const }),
});
const stop = async () => {
  await indexer.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
indexer.process.on("exit", (code) => process.exit(code ?? 1));

await indexer.ready(24 * 60 * 60 * 1000);
if (databaseUrl && target.chainId === LOCAL_CHAIN_ID) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const dropped = await dropStaleIndexerSchemas((sql) => db.query(sql), schema);
  await db.end();
  if (dropped.length > 0) log(`Dropped the schemas of earlier local indexers: ${dropped.join(", ")}`);
}
