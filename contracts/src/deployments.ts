import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ERC8004_ADDRESSES } from "./chains.ts";

/** Where one contract of a deployment lives. `abi` names the ABI export of this package. */
export interface DeployedContract {
  address: `0x${string}`;
  /** Block of the deployment transaction: where an indexer starts. */
  startBlock: number;
  abi: "agentEscrowAbi" | "mockUsdcAbi" | "erc20Abi" | "identityRegistryAbi" | "reputationRegistryAbi";
}

/** One chain's deployments file: `contracts/deployments/<chainId>.json`. */
export interface Deployment {
  chainId: number;
  contracts: {
    AgentEscrow: DeployedContract;
    USDC: DeployedContract;
    IdentityRegistry?: DeployedContract;
    ReputationRegistry?: DeployedContract;
  };
}

/**
 * Folder of the deployments files. `DEPLOYMENTS_DIR` overrides it, so a test can run its own
 * chain without touching the developer's files.
 */
export function deploymentsDir(env: Record<string, string | undefined> = process.env): string {
  return env.DEPLOYMENTS_DIR
    ? path.resolve(env.DEPLOYMENTS_DIR)
    : fileURLToPath(new URL("../deployments", import.meta.url));
}

export function deploymentFile(chainId: number, dir = deploymentsDir()): string {
  return path.join(dir, `${chainId}.json`);
}

/** The deployment recorded for `chainId` (in `dir`, by default {@link deploymentsDir}), or undefined if none. */
export function readDeployment(chainId: number, dir = deploymentsDir()): Deployment | undefined {
  const file = deploymentFile(chainId, dir);
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, "utf8")) as Deployment;
}

export function writeDeployment(deployment: Deployment, dir = deploymentsDir()): string {
  const file = deploymentFile(deployment.chainId, dir);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(deployment, null, 2)}\n`);
  return file;
}

/** The ERC-8004 registries a chain's marketplace uses. */
export interface Erc8004Registries {
  identityRegistry: `0x${string}`;
  reputationRegistry: `0x${string}`;
}

/**
 * The ERC-8004 registries of a deployment: its own (local chains deploy them), else the official
 * ones of its chain; undefined when it has neither.
 */
export function erc8004RegistriesOf(deployment: Deployment): Erc8004Registries | undefined {
  const { IdentityRegistry, ReputationRegistry } = deployment.contracts;
  if (IdentityRegistry && ReputationRegistry) {
    return { identityRegistry: IdentityRegistry.address, reputationRegistry: ReputationRegistry.address };
  }
  return ERC8004_ADDRESSES[deployment.chainId];
}
