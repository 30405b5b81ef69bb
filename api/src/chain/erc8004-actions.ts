import {
  type Deployment,
  erc8004RegistriesOf,
  identityRegistryAbi,
  reputationRegistryAbi,
} from "@agent-marketplace/contracts";
import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  type PublicClient,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import { ProofRejectedError } from "./errors.ts";

/**
 * The ERC-8004 registries as the API uses them: the calls it encodes (register, giveFeedback) and
 * what it reads back from receipts (the Registered and NewFeedback events of our registries).
 */

/** Why a registration tx_hash is refused: answered as 400 with this code and text. */
export class RegistrationProofError extends ProofRejectedError {
  constructor(code: string, message: string) {
    super(message, code);
  }
}

/** What a giveFeedback call carries (see IReputationRegistry.giveFeedback). */
export interface FeedbackCall {
  agentId: bigint;
  value: bigint;
  valueDecimals: number;
  tag1: string;
  tag2: string;
  endpoint: string;
  feedbackUri: string;
  feedbackHash: Hex;
}

export interface Erc8004Actions {
  chainId: number;
  identityRegistry: Address;
  reputationRegistry: Address;
  /** The identity registry as ERC-8004 names it: `eip155:<chainId>:<address>`. */
  agentRegistry: string;
  /** `register(agentURI)`, sent by the wallet that will own the identity. */
  registerCall(agentUri: string): { to: Address; data: Hex };
  /**
   * The identity `receipt` registered for `owner` with `agentUri` in our identity registry; throws
   * {@link RegistrationProofError} when the receipt reverted or registered anything else.
   */
  registrationIn(receipt: TransactionReceipt, owner: Address, agentUri: string): bigint;
  /** Fetches the receipt of `txHash`, then as {@link registrationIn}. */
  verifyRegistration(txHash: Hex, owner: Address, agentUri: string): Promise<{ agentId: bigint; blockNumber: bigint }>;
  giveFeedbackCall(feedback: FeedbackCall): { to: Address; data: Hex };
  /** The index of the feedback `client` gave in `receipt` (NewFeedback of our reputation registry). */
  feedbackIndexIn(receipt: TransactionReceipt, client: Address): bigint | undefined;
}

export function createErc8004Actions(options: {
  chainId: number;
  deployment: Deployment;
  publicClient: PublicClient;
}): Erc8004Actions {
  const { chainId, publicClient } = options;
  const registries = erc8004RegistriesOf(options.deployment);
  if (!registries) throw new Error(`Chain ${chainId} has no ERC-8004 registries in its deployments file or known ones`);
  const identityRegistry = getAddress(registries.identityRegistry);
  const reputationRegistry = getAddress(registries.reputationRegistry);

  function registrationIn(receipt: TransactionReceipt, owner: Address, agentUri: string): bigint {
    const txHash = receipt.transactionHash;
    if (receipt.status !== "success") throw new RegistrationProofError("tx_reverted", `Transaction ${txHash} reverted`);
    const registered = parseEventLogs({ abi: identityRegistryAbi, eventName: "Registered", logs: receipt.logs }).filter(
      (log) => getAddress(log.address) === identityRegistry,
    );
    if (registered.length === 0) {
      throw new RegistrationProofError(
        "not_a_registration",
        `Transaction ${txHash} registered no agent in the identity registry ${identityRegistry}`,
      );
    }
    const owned = registered.filter((log) => getAddress(log.args.owner) === getAddress(owner));
    if (owned.length === 0) {
      throw new RegistrationProofError(
        "wrong_owner",
        `Transaction ${txHash} registered an agent owned by another wallet than ${getAddress(owner)}`,
      );
    }
    const match = owned.find((log) => log.args.agentURI === agentUri);
    if (!match) {
      throw new RegistrationProofError(
        "wrong_agent_uri",
        `Transaction ${txHash} registered another agentURI than this agent's registration file ${agentUri}`,
      );
    }
    return match.args.agentId;
  }

  return {
    chainId,
    identityRegistry,
    reputationRegistry,
    agentRegistry: `eip155:${chainId}:${identityRegistry}`,

    registerCall(agentUri) {
      return {
        to: identityRegistry,
        data: encodeFunctionData({ abi: identityRegistryAbi, functionName: "register", args: [agentUri] }),
      };
    },

    registrationIn,

    async verifyRegistration(txHash, owner, agentUri) {
      const receipt = await publicClient.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
      if (!receipt) {
        throw new RegistrationProofError("tx_not_found", `No transaction ${txHash} has been mined on chain ${chainId}`);
      }
      return { agentId: registrationIn(receipt, owner, agentUri), blockNumber: receipt.blockNumber };
    },

    giveFeedbackCall(feedback) {
      return {
        to: reputationRegistry,
        data: encodeFunctionData({
          abi: reputationRegistryAbi,
          functionName: "giveFeedback",
          args: [
            feedback.agentId,
            feedback.value,
            feedback.valueDecimals,
            feedback.tag1,
            feedback.tag2,
            feedback.endpoint,
            feedback.feedbackUri,
            feedback.feedbackHash,
          ],
        }),
      };
    },

    feedbackIndexIn(receipt, client) {
      const given = parseEventLogs({ abi: reputationRegistryAbi, eventName: "NewFeedback", logs: receipt.logs }).find(
        (log) => getAddress(log.address) === reputationRegistry && getAddress(log.args.clientAddress) === client,
      );
      return given?.args.feedbackIndex;
    },
  };
}
