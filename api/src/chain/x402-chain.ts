import { agentEscrowAbi, type Deployment, fundingNonce, USDC_EIP712 } from "@agent-marketplace/contracts";
import type { FacilitatorEvmSigner } from "@x402/evm";
import {
  type Abi,
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  hashDomain,
  isAddressEqual,
  type PublicClient,
  parseAbi,
  parseEventLogs,
} from "viem";
import type { RelayCall } from "./relayer.ts";

/*
 * What an x402 payment needs of the chain: the token's EIP-712 domain (the name and version the
 * payment requirements carry), a viem public client shaped as the signer @x402/evm's exact-scheme
 * facilitator verifies with, the token's record of an authorization's nonce, and the escrow's
 * fundWithTransfer call the relayer sends. Settlement is the marketplace's own: the facilitator
 * signer sends nothing.
 */

/** A buyer's EIP-3009 TransferWithAuthorization to the escrow, as fundWithTransfer takes it. */
export interface TransferAuthorization {
  from: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
}

/** Where the token used an authorization: the transaction that moved its funds to the escrow. */
export interface AuthorizationTransfer {
  txHash: Hex;
  blockNumber: bigint;
}

/** What the token's record of a nonce says: unused, or used (and, if so, whether it paid the escrow). */
export type AuthorizationUse =
  | { used: false }
  | { used: true; transfer: AuthorizationTransfer }
  | { used: true; transfer: undefined; reason: string };

export interface X402Chain {
  chainId: number;
  escrow: Address;
  usdc: Address;
  /** USDC's EIP-712 name and version, read from the token once (and checked against its DOMAIN_SEPARATOR). */
  tokenDomain(): Promise<{ name: string; version: string }>;
  /** The signer @x402/evm's facilitator verifies with: reads only; it never sends. */
  facilitatorSigner: FacilitatorEvmSigner;
  /**
   * The token's record of `nonce`. Used, it names the transaction in which the token used it for
   * exactly this authorization's transfer to the escrow (AuthorizationUsed immediately followed by
   * Transfer(from, escrow, value)), unless that transaction also funded one of the buyer's escrows
   * with the nonce (fundWithAuthorization emits the same pair: those funds are that escrow's). A
   * cancelled nonce, or one spent elsewhere, is used with no transfer and a reason.
   */
  authorizationUse(authorization: TransferAuthorization): Promise<AuthorizationUse>;
  /** `fundWithTransfer`: the operator (the relayer) settles the payment into a new escrow. */
  relayedTransferFunding(
    seller: Address,
    deadline: number,
    disputeWindow: number,
    authorization: TransferAuthorization,
  ): RelayCall;
}

const tokenAbi = parseAbi([
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);

/** The outbox's purpose of an x402 payment's settlement. */
export const X402_SETTLEMENT_PURPOSE = "x402-fund";

export function createX402Chain(options: {
  chainId: number;
  deployment: Deployment;
  publicClient: PublicClient;
}): X402Chain {
  const { chainId, publicClient } = options;
  const escrow = getAddress(options.deployment.contracts.AgentEscrow.address);
  const usdc = getAddress(options.deployment.contracts.USDC.address);
  const startBlock = BigInt(options.deployment.contracts.AgentEscrow.startBlock);

  let domain: Promise<{ name: string; version: string }> | undefined;
  async function readDomain(): Promise<{ name: string; version: string }> {
    const [name, separator, version] = await Promise.all([
      publicClient.readContract({ address: usdc, abi: tokenAbi, functionName: "name" }),
      publicClient.readContract({ address: usdc, abi: tokenAbi, functionName: "DOMAIN_SEPARATOR" }),
      // Circle's FiatToken has version(); the local MockUSDC copies Base's domain without it.
      publicClient
        .readContract({ address: usdc, abi: tokenAbi, functionName: "version" })
        .catch(() => USDC_EIP712[chainId]?.version ?? "2"),
    ]);
    const expected = { name, version, chainId: BigInt(chainId), verifyingContract: usdc };
    if (hashDomain({ domain: expected, types: { EIP712Domain: domainFields } }) !== separator) {
      throw new Error(
        `USDC at ${usdc}: its DOMAIN_SEPARATOR is not the domain of name "${name}", version "${version}"`,
      );
    }
    return { name, version };
  }

  const facilitatorSigner: FacilitatorEvmSigner = {
    getAddresses: () => [],
    readContract: (args) =>
      publicClient.readContract({
        address: args.address,
        abi: args.abi as Abi,
        functionName: args.functionName,
        args: args.args,
      }),
    async verifyTypedData() {
      // The exact scheme recovers EIP-3009 signers itself (ERC-1271 wallets through readContract).
      throw new Error("verifyTypedData is not used by the marketplace's x402 verification");
    },
    async writeContract() {
      throw new Error("x402 payments are settled by the marketplace's relayer (fundWithTransfer), not the facilitator");
    },
    async sendTransaction() {
      throw new Error("x402 payments are settled by the marketplace's relayer (fundWithTransfer), not the facilitator");
    },
    async waitForTransactionReceipt() {
      throw new Error("x402 payments are settled by the marketplace's relayer (fundWithTransfer), not the facilitator");
    },
    getCode: ({ address }) => publicClient.getCode({ address }),
  };

  return {
    chainId,
    escrow,
    usdc,

    tokenDomain() {
      if (!domain) {
        domain = readDomain();
        domain.catch(() => {
          domain = undefined;
        });
      }
      return domain;
    },

    facilitatorSigner,

    async authorizationUse(authorization) {
      const { from, nonce, value } = authorization;
      const used = await publicClient.readContract({
        address: usdc,
        abi: tokenAbi,
        functionName: "authorizationState",
        args: [from, nonce],
      });
      if (!used) return { used: false };
      // One flag per nonce, set once: at most one AuthorizationUsed (none for a cancellation).
      const logs = await publicClient.getLogs({
        address: usdc,
        event: tokenAbi[4],
        args: { authorizer: from, nonce },
        fromBlock: startBlock,
        toBlock: "latest",
      });
      const usedLog = logs[0];
      if (!usedLog?.transactionHash || usedLog.logIndex === null || usedLog.blockNumber === null) {
        return { used: true, transfer: undefined, reason: "the buyer cancelled this authorization" };
      }
      const receipt = await publicClient.getTransactionReceipt({ hash: usedLog.transactionHash });
      const tokenLogs = receipt.logs.filter((log) => isAddressEqual(log.address, usdc));
      const next = parseEventLogs({
        abi: tokenAbi,
        eventName: "Transfer",
        logs: tokenLogs.filter((log) => log.logIndex === usedLog.logIndex + 1),
      })[0];
      const paidEscrow =
        next !== undefined &&
        isAddressEqual(next.args.from, from) &&
        isAddressEqual(next.args.to, escrow) &&
        next.args.value === value;
      if (!paidEscrow) {
        return { used: true, transfer: undefined, reason: "the buyer spent this authorization's nonce elsewhere" };
      }
      // fundWithAuthorization emits the same pair for an escrow it funds: those funds are its.
      const fundedWithNonce = parseEventLogs({ abi: agentEscrowAbi, eventName: "Funded", logs: receipt.logs }).some(
        (log) =>
          isAddressEqual(log.address, escrow) &&
          isAddressEqual(log.args.buyer, from) &&
          fundingNonce(
            log.args.escrowId,
            log.args.seller,
            Number(log.args.deadline),
            Number(log.args.disputeWindow),
          ) === nonce.toLowerCase(),
      );
      if (fundedWithNonce) {
        return { used: true, transfer: undefined, reason: "this nonce funded another escrow of the buyer's" };
      }
      return { used: true, transfer: { txHash: usedLog.transactionHash, blockNumber: usedLog.blockNumber } };
    },

    relayedTransferFunding(seller, deadline, disputeWindow, authorization) {
      const data = encodeFunctionData({
        abi: agentEscrowAbi,
        functionName: "fundWithTransfer",
        args: [seller, deadline, disputeWindow, authorization],
      });
      return { to: escrow, data, purpose: X402_SETTLEMENT_PURPOSE };
    },
  };
}

/** The EIP-712 domain's fields as USDC hashes them (name, version, chainId, verifyingContract). */
const domainFields = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
] as const;
