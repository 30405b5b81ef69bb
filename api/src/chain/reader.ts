import { type Deployment, mockUsdcAbi, readDeployment } from "@agent-marketplace/contracts";
import { type Address, createPublicClient, erc20Abi, http, type PublicClient } from "viem";

/** Read-only access to the chain: balances and the deployment. */
export interface ChainReader {
  chainId: number;
  deployment: Deployment;
  publicClient: PublicClient;
  balances(address: Address): Promise<{ ethWei: bigint; usdcWei: bigint }>;
}

export function createChainReader(options: { chainId: number; rpcUrl: string; deployment?: Deployment }): ChainReader {
  const deployment = options.deployment ?? readDeployment(options.chainId);
  if (!deployment) throw new Error(`No deployment for chain ${options.chainId}: deploy the contracts first`);
  const publicClient = createPublicClient({ transport: http(options.rpcUrl) }) as PublicClient;
  const usdc = deployment.contracts.USDC.address;
  const abi = deployment.contracts.USDC.abi === "mockUsdcAbi" ? mockUsdcAbi : erc20Abi;
  return {
    chainId: options.chainId,
    deployment,
    publicClient,
    async balances(address) {
      const [ethWei, usdcWei] = await Promise.all([
        publicClient.getBalance({ address }),
        publicClient.readContract({
          address: usdc,
          abi,
          functionName: "balanceOf",
          args: [address],
        }) as Promise<bigint>,
      ]);
      return { ethWei, usdcWei };
    },
  };
}
