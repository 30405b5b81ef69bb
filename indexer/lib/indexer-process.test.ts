import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { indexerEnv } from "./indexer-process.ts";

const options = { schema: "indexer_test", port: 42_069, rpcUrl: "http://127.0.0.1:8545" };

describe("indexerEnv", () => {
  it("lets Ponder start at 500 JSON-RPC requests a second on the local chain", () => {
    expect(indexerEnv({ ...options, chainId: 31337 }, {}).PONDER_RPC_INITIAL_RPS).toBe("500");
  });

  it("keeps Ponder's own cautious start on a provider's endpoint, and an operator's choice anywhere", () => {
    expect(indexerEnv({ ...options, chainId: 8453 }, {}).PONDER_RPC_INITIAL_RPS).toBeUndefined();
    expect(indexerEnv({ ...options, chainId: 31337 }, { PONDER_RPC_INITIAL_RPS: "50" }).PONDER_RPC_INITIAL_RPS).toBe(
      "50",
    );
  });

  it("is read by the installed Ponder (the patch is applied)", () => {
    // The Ponder that startIndexer runs: the indexer's own dependency.
    const ponderDir = path.join(import.meta.dirname, "..", "node_modules", "ponder");
    const rpc = readFileSync(path.join(ponderDir, "dist/esm/rpc/index.js"), "utf8");
    expect(rpc).toMatch(/const INITIAL_MAX_RPS = .*process\.env\.PONDER_RPC_INITIAL_RPS/);
  });
});
