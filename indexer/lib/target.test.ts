import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Deployment, ERC8004_ADDRESSES, writeDeployment } from "@agent-marketplace/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveIndexerTarget } from "./target.ts";

const ESCROW = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
const USDC = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
const IDENTITY = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const REPUTATION = "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9";

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "indexer-target-"));
  const local: Deployment = {
    chainId: 31337,
    contracts: {
      AgentEscrow: { address: ESCROW, startBlock: 5, abi: "agentEscrowAbi" },
      USDC: { address: USDC, startBlock: 1, abi: "mockUsdcAbi" },
      IdentityRegistry: { address: IDENTITY, startBlock: 1, abi: "identityRegistryAbi" },
      ReputationRegistry: { address: REPUTATION, startBlock: 1, abi: "reputationRegistryAbi" },
    },
  };
  writeDeployment(local, dir);
  writeDeployment(
    {
      chainId: 84532,
      contracts: {
        AgentEscrow: { address: ESCROW, startBlock: 33_000_000, abi: "agentEscrowAbi" },
        USDC: { address: USDC, startBlock: 0, abi: "erc20Abi" },
      },
    },
    dir,
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = (vars: Record<string, string>) => ({ DEPLOYMENTS_DIR: dir, ...vars });

describe("resolveIndexerTarget", () => {
  it("indexes the local Hardhat node by default, polling fast and caching nothing", () => {
    expect(resolveIndexerTarget(env({}))).toEqual({
      chainId: 31337,
      chainName: "hardhat",
      rpcUrl: "http://127.0.0.1:8545",
      pollingInterval: 100,
      disableCache: true,
      contracts: {
        AgentEscrow: { address: ESCROW, startBlock: 5 },
        IdentityRegistry: { address: IDENTITY, startBlock: 1 },
        ReputationRegistry: { address: REPUTATION, startBlock: 1 },
      },
    });
  });

  it("indexes Base Sepolia with the official ERC-8004 registries from the escrow's start block", () => {
    const target = resolveIndexerTarget(env({ CHAIN_ID: "84532", RPC_URL: "https://sepolia.example" }));
    const official = ERC8004_ADDRESSES[84532];
    expect(target).toMatchObject({
      chainName: "baseSepolia",
      rpcUrl: "https://sepolia.example",
      pollingInterval: 1_000,
      disableCache: false,
      contracts: {
        AgentEscrow: { address: ESCROW, startBlock: 33_000_000 },
        IdentityRegistry: { address: official?.identityRegistry, startBlock: 33_000_000 },
        ReputationRegistry: { address: official?.reputationRegistry, startBlock: 33_000_000 },
      },
    });
  });

  it("takes the polling interval from the environment", () => {
    expect(resolveIndexerTarget(env({ POLLING_INTERVAL_MS: "250" })).pollingInterval).toBe(250);
  });

  it("refuses what it cannot index, saying why", () => {
    expect(() => resolveIndexerTarget(env({ CHAIN_ID: "1" }))).toThrow(/not a marketplace chain/);
    expect(() => resolveIndexerTarget(env({ CHAIN_ID: "84532" }))).toThrow(/RPC_URL is required/);
    expect(() => resolveIndexerTarget(env({ CHAIN_ID: "8453", RPC_URL: "https://base.example" }))).toThrow(
      /No deployment for chain 8453/,
    );
    expect(() => resolveIndexerTarget(env({ POLLING_INTERVAL_MS: "50" }))).toThrow(/at least 100/);
    expect(() => resolveIndexerTarget(env({ POLLING_INTERVAL_MS: "soon" }))).toThrow(/at least 100/);
  });
});
