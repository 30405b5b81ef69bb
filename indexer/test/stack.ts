/**
 * The real parts an indexer test or benchmark runs against: a Hardhat node with the marketplace
 * deployed, an embedded Postgres, and the indexer as a `ponder start` process. Every run gets its
 * own ports, deployments folder and database, under one temporary folder removed at the end.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Deployment } from "@agent-marketplace/contracts";
import { deployLocalMarketplace, type LocalNode, startHardhatNode } from "@agent-marketplace/contracts/local-chain";
import pg from "pg";
import { type IndexerProcess, schemaNameFor, startIndexer } from "../lib/indexer-process.ts";
import { freePort, startLocalPostgres } from "../lib/local-postgres.ts";

export { freePort } from "../lib/local-postgres.ts";

export interface Postgres {
  /** Over TCP. */
  url: string;
  /** Over the cluster's Unix socket, when it has one (see LocalPostgres): cheaper per query. */
  socketUrl?: string;
  /** What the API connects with: the socket when there is one, else TCP. */
  apiUrl: string;
  stop(): Promise<void>;
}

/** A throwaway Postgres cluster under `dir`, with database "marketplace"; removed when stopped. */
export async function startPostgres(dir: string): Promise<Postgres> {
  const { url, socketUrl, stop } = await startLocalPostgres({
    dataDir: path.join(dir, "pg"),
    port: await freePort(),
    persistent: false,
  });
  return { url, socketUrl, apiUrl: socketUrl ?? url, stop };
}

export interface Stack {
  dir: string;
  node: LocalNode;
  deployment: Deployment;
  deploymentsDir: string;
  postgres: Postgres;
  /** A client of the stack's database, for reading the views. */
  db: pg.Client;
  /** The indexer schema of this chain and build. */
  schema: string;
  indexer?: IndexerProcess;
  /** Starts (or restarts) the indexer and waits until it is ready. */
  startIndexer(): Promise<IndexerProcess>;
  stop(): Promise<void>;
}

/** Chain, contracts and database; the indexer is started by `stack.startIndexer()`. */
export async function startStack(options: { name: string }): Promise<Stack> {
  const dir = mkdtempSync(path.join(tmpdir(), `${options.name}-`));
  const deploymentsDir = path.join(dir, "deployments");
  const node = await startHardhatNode({ port: await freePort(), logFile: path.join(dir, "hardhat-node.log") });
  let postgres: Postgres | undefined;
  try {
    const deployment = await deployLocalMarketplace({ rpcUrl: node.rpcUrl, deploymentsDir });
    postgres = await startPostgres(dir);
    const db = new pg.Client({ connectionString: postgres.url });
    await db.connect();
    const deploymentJson = readFileSync(path.join(deploymentsDir, `${deployment.chainId}.json`), "utf8");
    const schema = schemaNameFor(deploymentJson, node.rpcUrl);
    const port = await freePort();
    const stack: Stack = {
      dir,
      node,
      deployment,
      deploymentsDir,
      postgres,
      db,
      schema,
      async startIndexer() {
        stack.indexer = startIndexer({
          databaseUrl: (postgres as Postgres).url,
          schema,
          chainId: deployment.chainId,
          rpcUrl: node.rpcUrl,
          deploymentsDir,
          port,
          logFile: path.join(dir, "indexer.log"),
        });
        await stack.indexer.ready();
        return stack.indexer;
      },
      async stop() {
        await stack.indexer?.stop();
        await db.end();
        await (postgres as Postgres).stop();
        await node.stop();
        if (!process.env.KEEP_TEST_DATA) rmSync(dir, { recursive: true, force: true });
      },
    };
    return stack;
  } catch (error) {
    await postgres?.stop();
    await node.stop();
    throw error;
  }
}
