import type { Deployment } from "@agent-marketplace/contracts";
import { startStack } from "@agent-marketplace/indexer/testing";
import type { TestProject } from "vitest/node";

/**
 * One real stack for the whole API suite: a Hardhat node with the contracts, an embedded Postgres
 * and the indexer publishing schema "chain". Tests build the app on it (test/harness.ts).
 */
export default async function setup(project: TestProject) {
  const stack = await startStack({ name: "api-test" });
  let indexerUrl: string;
  try {
    indexerUrl = (await stack.startIndexer()).url;
  } catch (error) {
    await stack.stop();
    throw error;
  }
  project.provide("stack", {
    databaseUrl: stack.postgres.apiUrl,
    rpcUrl: stack.node.rpcUrl,
    deployment: stack.deployment,
    deploymentsDir: stack.deploymentsDir,
    indexerUrl,
  });
  return () => stack.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    stack: { databaseUrl: string; rpcUrl: string; deployment: Deployment; deploymentsDir: string; indexerUrl: string };
  }
}
