/**
 * The contracts on the chain: on the local chain (31337) they are deployed, or kept if already
 * there; on any other chain the deployments file must name them. A step, with nothing to stop.
 */
import type { Deployment } from "@agent-marketplace/contracts";
import type { Settings } from "../settings.ts";
import { type Part, StartError } from "../supervisor.ts";
import type { Chain } from "./chain.ts";

export interface Contracts extends Part {
  /** Known once started. */
  deployed(): DeployedContracts;
}

export interface DeployedContracts {
  /** The chain they are on. */
  rpcUrl: string;
  chainId: number;
  /** The local Hardhat chain (31337), with MockUSDC and the dev accounts. */
  local: boolean;
  deployment: Deployment;
  /** The deployments file it was read from. */
  deploymentFile: string;
}

export function deployedContracts(settings: Settings, chain: Chain): Contracts {
  let deployed: DeployedContracts | undefined;
  return {
    name: "The contracts",
    shortName: "contracts",
    deployed() {
      if (!deployed) throw new Error("The contracts are not known before they are deployed");
      return deployed;
    },
    async start() {
      const { deploymentFile, deploymentsDir, LOCAL_CHAIN_ID, readDeployment } = await import(
        "@agent-marketplace/contracts"
      );
      const { chainIdAt, deployLocalMarketplace } = await import("@agent-marketplace/contracts/local-chain");
      const { rpcUrl } = chain;
      const chainId = await chainIdAt(rpcUrl);
      if (chainId === undefined) throw new StartError(`No chain answers at RPC_URL=${rpcUrl}`);
      if (settings.chainId && Number(settings.chainId) !== chainId) {
        throw new StartError(`CHAIN_ID=${settings.chainId}, but the chain at ${rpcUrl} is chain ${chainId}`);
      }
      const local = chainId === LOCAL_CHAIN_ID;
      const folder = deploymentsDir({ DEPLOYMENTS_DIR: settings.deploymentsDir });
      let deployment = readDeployment(chainId, folder);
      if (local) {
        console.log("Deploying the contracts (kept if already on this chain)...");
        deployment = await deployLocalMarketplace({ rpcUrl, deploymentsDir: settings.deploymentsDir });
      } else if (!deployment) {
        throw new StartError(
          `No deployment for chain ${chainId} in ${deploymentFile(chainId, folder)}: deploy the contracts first (README, Deployments).`,
        );
      }
      deployed = { rpcUrl, chainId, local, deployment, deploymentFile: deploymentFile(chainId, folder) };
      return {};
    },
  };
}
