import { agentEscrowAbi, type Deployment, mockUsdcAbi, readDeployment } from "@agent-marketplace/contracts";
import { type Address, createPublicClient, erc20Abi, getAddress, http, type PublicClient, zeroAddress } from "viem";
import { createX402Chain, type X402Chain } from "./x402-chain.ts";

/**
 * How long the escrow's arbiter address (and its other roles) are remembered: the owner may change
 * them (setArbiter, setOperator, setFeeRecipient, a transfer of ownership).
 */
const ARBITER_TTL_MS = 60_000;

/** The escrow's functions that name one of its roles. */
const ESCROW_ROLES = ["owner", "pendingOwner", "arbiter", "operator", "feeRecipient"] as const;

/** Read-only access to the chain: balances, the deployment and the escrow's arbiter. */
export interface ChainReader {
  chainId: number;
  deployment: Deployment;
  publicClient: PublicClient;
  balances(address: Address): Promise<{ ethWei: bigint; usdcWei: bigint }>;
  /**
   * The USDC of `address` after the newest block, and that block's number: what a check of the
   * balance compares with the sends it knows were mined by then.
   */
  usdcBalanceNow(address: Address): Promise<{ usdcWei: bigint; blockNumber: bigint }>;
  /** The escrow's arbiter (`arbiter()`), read at most once a minute. */
  arbiter(): Promise<Address>;
  /**
   * The platform's own addresses: the escrow's owner, pending owner, arbiter, operator and fee
   * recipient (read at most once a minute), the deployment's contracts and the zero address.
   */
  platformAddresses(): Promise<Address[]>;
  /** x402 on this chain (USDC's EIP-712 domain, read once; verification; settlement's evidence), shared by payers and payees. */
  x402: X402Chain;
}

export function createChainReader(options: { chainId: number; rpcUrl: string; deployment?: Deployment }): ChainReader {
  const deployment = options.deployment ?? readDeployment(options.chainId);
  if (!deployment) throw new Error(`No deployment for chain ${options.chainId}: deploy the contracts first`);
  const publicClient = createPublicClient({ transport: http(options.rpcUrl) }) as PublicClient;
  const usdc = deployment.contracts.USDC.address;
  const abi = deployment.contracts.USDC.abi === "mockUsdcAbi" ? mockUsdcAbi : erc20Abi;
  let arbiter: { address: Promise<Address>; readAt: number } | undefined;
  let roles: { addresses: Promise<Address[]>; readAt: number } | undefined;
  const contracts = Object.values(deployment.contracts).map((contract) => getAddress(contract.address));
  return {
    chainId: options.chainId,
    deployment,
    publicClient,
    x402: createX402Chain({ chainId: options.chainId, deployment, publicClient }),
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
    async usdcBalanceNow(address) {
      // The block number is read again each time (viem caches it for seconds by default).
      const blockNumber = await publicClient.getBlockNumber({ cacheTime: 0 });
      const usdcWei = (await publicClient.readContract({
        address: usdc,
        abi,
        functionName: "balanceOf",
        args: [address],
        blockNumber,
      })) as bigint;
      return { usdcWei, blockNumber };
    },
    arbiter() {
      if (!arbiter || Date.now() - arbiter.readAt > ARBITER_TTL_MS) {
        const address = publicClient.readContract({
          address: deployment.contracts.AgentEscrow.address,
          abi: agentEscrowAbi,
          functionName: "arbiter",
        });
        // A failed read is not remembered.
        address.catch(() => {
          arbiter = undefined;
        });
        arbiter = { address, readAt: Date.now() };
      }
      return arbiter.address;
    },
    platformAddresses() {
      if (!roles || Date.now() - roles.readAt > ARBITER_TTL_MS) {
        const addresses = Promise.all(
          ESCROW_ROLES.map((functionName) =>
            publicClient.readContract({
              address: deployment.contracts.AgentEscrow.address,
              abi: agentEscrowAbi,
              functionName,
            }),
          ),
        ).then((read) => [...new Set([...read.map((address) => getAddress(address)), ...contracts, zeroAddress])]);
        // A failed read is not remembered.
        addresses.catch(() => {
          roles = undefined;
        });
        roles = { addresses, readAt: Date.now() };
      }
      return roles.addresses;
    },
  };
}
