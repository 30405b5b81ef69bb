import { randomBytes } from "node:crypto";
import {
  agentEscrowAbi,
  type Deployment,
  type EscrowTerms,
  escrowActionTypes,
  escrowDomain,
  fundingNonce,
  receiveWithAuthorizationTypes,
  USDC_EIP712,
} from "@agent-marketplace/contracts";
import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  type LocalAccount,
  type PublicClient,
  parseEventLogs,
  parseSignature,
  type TransactionReceipt,
} from "viem";
import { ProofRejectedError } from "./errors.ts";
import type { RelayCall } from "./relayer.ts";

/** What a buyer funds: the escrow's terms before delivery (fee and deliveredAt come from the contract). */
export interface FundingTerms {
  /** The funding reference: the transaction's uuid as bytes32 (`escrowRef`). */
  ref: Hex;
  /** The escrow's id on chain: `escrowIdOf(buyer, ref)`, which only the buyer can fund. */
  escrowId: Hex;
  buyer: Address;
  seller: Address;
  amount: bigint;
  /** Unix seconds. */
  deadline: number;
  /** Seconds. */
  disputeWindow: number;
}

/** One on-chain call an external agent makes, exactly as it must be sent. */
export interface ContractCall {
  to: Address;
  function: string;
  args: Record<string, string | number>;
  data: Hex;
}

/** A buyer's EIP-3009 signature over the funding, as posted back by an external agent. */
export interface FundingAuthorization {
  signature: Hex;
  validAfter: bigint;
  validBefore: bigint;
}

/** A party's move on a funded escrow, with what it commits to on chain. */
export type EscrowMove =
  | { action: "deliver"; deliverableHash: Hex }
  | { action: "release" }
  | { action: "refund" }
  | { action: "dispute"; reasonHash: Hex };

/** A party's EIP-712 signature over a move, for the relayer to submit (`<action>WithSig`). */
export interface SignedMove {
  signer: Address;
  nonce: bigint;
  sigDeadline: bigint;
  signature: Hex;
}

/** The outbox's purpose of a `withdrawCredit` the relayer sends (the keeper's pay-out of credits). */
export const CREDIT_WITHDRAWAL_PURPOSE = "credit-withdrawal";

const MOVE_EVENTS = {
  deliver: "Delivered",
  release: "Released",
  refund: "Refunded",
  dispute: "Disputed",
} as const;

/** Seconds an EIP-3009 authorization made by the service stays valid. */
const AUTHORIZATION_LIFETIME_S = 3_600;

export interface EscrowActions {
  chainId: number;
  escrow: Address;
  usdc: Address;
  /** The chain's clock (latest block time, never behind the wall clock), unix seconds. */
  now(): Promise<number>;
  /** `approve` then `fund`: the calls an external buyer sends from its own wallet. */
  fundingCalls(terms: FundingTerms): ContractCall[];
  /** The EIP-3009 typed data a buyer signs to fund without ETH (the gasless alternative). */
  fundingTypedData(terms: FundingTerms, validBefore: bigint): ReturnType<typeof typedData>;
  /** Signs the funding with a hosted agent's key. */
  signFunding(account: LocalAccount, terms: FundingTerms): Promise<FundingAuthorization>;
  /** `fundWithAuthorization` with a buyer's EIP-3009 signature, for the relayer to send. */
  relayedFunding(terms: FundingTerms, authorization: FundingAuthorization): RelayCall;
  /**
   * Checks that `txHash` is a successful transaction on this chain that funded exactly `terms`
   * on our escrow contract; answers its receipt. Throws {@link ProofRejectedError} otherwise.
   */
  verifyFunding(txHash: Hex, terms: FundingTerms): Promise<TransactionReceipt>;
  /**
   * {@link verifyFunding} of a receipt the caller already fetched (one read): answers it, or throws
   * {@link ProofRejectedError}; `txHash` as handed in names it in the messages.
   */
  verifyFundingReceipt(receipt: TransactionReceipt, terms: FundingTerms, txHash?: Hex): TransactionReceipt;
  /** The escrows our escrow contract's Funded events in `receipt` opened (id, reference, buyer), in log order. */
  fundedRefs(receipt: TransactionReceipt): { escrowId: Hex; ref: Hex; buyer: Address }[];
  /** The call a party sends itself to make `move`. */
  moveCall(escrowId: Hex, terms: EscrowTerms, move: EscrowMove): ContractCall;
  /** The EIP-712 typed data a party signs to make `move` gasless. */
  moveTypedData(escrowId: Hex, move: EscrowMove, nonce: bigint, sigDeadline: bigint): ReturnType<typeof moveTypedData>;
  /** Signs `move` with a hosted agent's key (fresh random nonce, valid for an hour). */
  signMove(account: LocalAccount, escrowId: Hex, move: EscrowMove): Promise<SignedMove>;
  /** A party's signed move (`<action>WithSig`), for the relayer to send. */
  relayedMove(escrowId: Hex, terms: EscrowTerms, move: EscrowMove, signed: SignedMove): RelayCall;
  /** `assignSeller`: the relayer, as the escrow's operator, names a bounty's claimant (a claim). */
  relayedAssignSeller(escrowId: Hex, terms: EscrowTerms, seller: Address, deadline: number): RelayCall;
  /**
   * `release` after the dispute window or `refund` after the deadline: moves anyone may make once
   * time allows (the keeper's). `purpose` names it in the outbox.
   */
  relayedTimeout(escrowId: Hex, terms: EscrowTerms, action: "release" | "refund", purpose: string): RelayCall;
  /** `resolve`: the arbiter's ruling, `sellerBps` of the amount to the seller. */
  relayedRuling(escrowId: Hex, terms: EscrowTerms, sellerBps: number): RelayCall;
  /** `withdrawCredit`: pays `account` its credited payouts (anyone may send it; the keeper does). */
  relayedCreditWithdrawal(account: Address): RelayCall;
  /** Checks that `txHash` succeeded and made `move` on this escrow; answers its receipt. */
  verifyMove(txHash: Hex, escrowId: Hex, move: EscrowMove): Promise<TransactionReceipt>;
}

/** Typed data as JSON carries it: bigints as decimal strings. */
export function jsonTypedData(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? v.toString() : v)));
}

function typedData(chainId: number, usdc: Address, escrow: Address, terms: FundingTerms, validBefore: bigint) {
  const domain = USDC_EIP712[chainId];
  if (!domain) throw new Error(`No USDC EIP-712 domain known for chain ${chainId}`);
  return {
    domain: { name: domain.name, version: domain.version, chainId, verifyingContract: usdc },
    types: receiveWithAuthorizationTypes,
    primaryType: "ReceiveWithAuthorization" as const,
    message: {
      from: terms.buyer,
      to: escrow,
      value: terms.amount,
      validAfter: 0n,
      validBefore,
      nonce: fundingNonce(terms.escrowId, terms.seller, terms.deadline, terms.disputeWindow),
    },
  };
}

function moveTypedData(
  chainId: number,
  escrow: Address,
  escrowId: Hex,
  move: EscrowMove,
  nonce: bigint,
  sigDeadline: bigint,
) {
  const domain = escrowDomain(chainId, escrow);
  switch (move.action) {
    case "deliver":
      return {
        domain,
        types: { Deliver: escrowActionTypes.Deliver },
        primaryType: "Deliver" as const,
        message: { escrowId, deliverableHash: move.deliverableHash, nonce, sigDeadline },
      };
    case "dispute":
      return {
        domain,
        types: { Dispute: escrowActionTypes.Dispute },
        primaryType: "Dispute" as const,
        message: { escrowId, reasonHash: move.reasonHash, nonce, sigDeadline },
      };
    case "release":
      return {
        domain,
        types: { Release: escrowActionTypes.Release },
        primaryType: "Release" as const,
        message: { escrowId, nonce, sigDeadline },
      };
    case "refund":
      return {
        domain,
        types: { Refund: escrowActionTypes.Refund },
        primaryType: "Refund" as const,
        message: { escrowId, nonce, sigDeadline },
      };
  }
}

const SIGNATURE_LIFETIME_S = 3_600;

export function createEscrowActions(options: {
  chainId: number;
  deployment: Deployment;
  publicClient: PublicClient;
}): EscrowActions {
  const { chainId, publicClient } = options;
  const escrow = getAddress(options.deployment.contracts.AgentEscrow.address);
  const usdc = getAddress(options.deployment.contracts.USDC.address);

  /** Signatures' lifetimes count on the chain's clock, which a test chain may have moved ahead. */
  async function chainNow(): Promise<number> {
    const block = await publicClient.getBlock({ blockTag: "latest" });
    return Math.max(Number(block.timestamp), Math.floor(Date.now() / 1000));
  }

  /** Checks a fetched receipt against `terms`; `txHash` as the caller handed it in, for the messages. */
  function verifyFundingReceipt(
    receipt: TransactionReceipt,
    terms: FundingTerms,
    txHash = receipt.transactionHash,
  ): TransactionReceipt {
    if (receipt.status !== "success") throw new ProofRejectedError(`Transaction ${txHash} reverted`);
    const funded = parseEventLogs({ abi: agentEscrowAbi, eventName: "Funded", logs: receipt.logs }).filter(
      (log) => getAddress(log.address) === escrow && log.args.escrowId.toLowerCase() === terms.escrowId.toLowerCase(),
    );
    const event = funded[0];
    if (!event) throw new ProofRejectedError(`Transaction ${txHash} did not fund escrow ${terms.escrowId}`);
    const got = event.args;
    const mismatches = [
      getAddress(got.buyer) !== getAddress(terms.buyer) && "buyer",
      getAddress(got.seller) !== getAddress(terms.seller) && "seller",
      got.amount !== terms.amount && "amount",
      Number(got.deadline) !== terms.deadline && "deadline",
      Number(got.disputeWindow) !== terms.disputeWindow && "dispute window",
    ].filter(Boolean);
    if (mismatches.length > 0) {
      throw new ProofRejectedError(
        `Transaction ${txHash} funded escrow ${terms.escrowId} with another ${mismatches.join(", ")} than this transaction's`,
      );
    }
    return receipt;
  }

  return {
    chainId,
    escrow,
    usdc,

    now: chainNow,

    fundingCalls(terms): ContractCall[] {
      const calls: ContractCall[] = [
        {
          to: usdc,
          function: "approve(address spender, uint256 value)",
          args: { spender: escrow, value: terms.amount.toString() },
          data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [escrow, terms.amount] }),
        },
        {
          to: escrow,
          function: "fund(bytes32 ref, address seller, uint256 amount, uint40 deadline, uint32 disputeWindow)",
          args: {
            ref: terms.ref,
            seller: terms.seller,
            amount: terms.amount.toString(),
            deadline: terms.deadline,
            disputeWindow: terms.disputeWindow,
          },
          data: encodeFunctionData({
            abi: agentEscrowAbi,
            functionName: "fund",
            args: [terms.ref, terms.seller, terms.amount, terms.deadline, terms.disputeWindow],
          }),
        },
      ];
      return calls;
    },

    fundingTypedData(terms, validBefore) {
      return typedData(chainId, usdc, escrow, terms, validBefore);
    },

    async signFunding(account, terms) {
      const validBefore = BigInt((await chainNow()) + AUTHORIZATION_LIFETIME_S);
      const signature = await account.signTypedData(typedData(chainId, usdc, escrow, terms, validBefore));
      return { signature, validAfter: 0n, validBefore };
    },

    relayedFunding(terms, authorization) {
      const { v, r, s, yParity } = parseSignature(authorization.signature);
      const data = encodeFunctionData({
        abi: agentEscrowAbi,
        functionName: "fundWithAuthorization",
        args: [
          terms.ref,
          terms.buyer,
          terms.seller,
          terms.amount,
          terms.deadline,
          terms.disputeWindow,
          {
            validAfter: authorization.validAfter,
            validBefore: authorization.validBefore,
            v: Number(v ?? BigInt(yParity + 27)),
            r,
            s,
          },
        ],
      });
      return { to: escrow, data, purpose: "fund" };
    },

    async verifyFunding(txHash, terms) {
      const receipt = await publicClient.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
      if (!receipt) throw new ProofRejectedError(`No transaction ${txHash} has been mined on chain ${chainId}`);
      return verifyFundingReceipt(receipt, terms, txHash);
    },

    verifyFundingReceipt,

    fundedRefs(receipt) {
      return parseEventLogs({ abi: agentEscrowAbi, eventName: "Funded", logs: receipt.logs })
        .filter((log) => getAddress(log.address) === escrow)
        .map((log) => ({ escrowId: log.args.escrowId, ref: log.args.ref, buyer: getAddress(log.args.buyer) }));
    },

    moveCall(escrowId, terms, move) {
      const termsArgs = {
        escrowId,
        buyer: terms.buyer,
        seller: terms.seller,
        amount: terms.amount.toString(),
        deadline: terms.deadline,
        disputeWindow: terms.disputeWindow,
        deliveredAt: terms.deliveredAt,
        feeBps: terms.feeBps,
      };
      const escrowTuple =
        "(address buyer, address seller, uint256 amount, uint40 deadline, uint32 disputeWindow, uint40 deliveredAt, uint16 feeBps) escrow";
      switch (move.action) {
        case "deliver":
          return {
            to: escrow,
            function: `deliver(bytes32 escrowId, ${escrowTuple}, bytes32 deliverableHash)`,
            args: { ...termsArgs, deliverableHash: move.deliverableHash },
            data: encodeFunctionData({
              abi: agentEscrowAbi,
              functionName: "deliver",
              args: [escrowId, terms, move.deliverableHash],
            }),
          };
        case "dispute":
          return {
            to: escrow,
            function: `dispute(bytes32 escrowId, ${escrowTuple}, bytes32 reasonHash)`,
            args: { ...termsArgs, reasonHash: move.reasonHash },
            data: encodeFunctionData({
              abi: agentEscrowAbi,
              functionName: "dispute",
              args: [escrowId, terms, move.reasonHash],
            }),
          };
        case "release":
        case "refund":
          return {
            to: escrow,
            function: `${move.action}(bytes32 escrowId, ${escrowTuple})`,
            args: termsArgs,
            data: encodeFunctionData({ abi: agentEscrowAbi, functionName: move.action, args: [escrowId, terms] }),
          };
      }
    },

    moveTypedData(escrowId, move, nonce, sigDeadline) {
      return moveTypedData(chainId, escrow, escrowId, move, nonce, sigDeadline);
    },

    async signMove(account, escrowId, move) {
      // Unordered nonces (a bitmap per signer): a random 248-bit one never repeats in practice.
      const nonce = BigInt(`0x${randomBytes(31).toString("hex")}`);
      const sigDeadline = BigInt((await chainNow()) + SIGNATURE_LIFETIME_S);
      // One of four typed-data shapes; viem types signTypedData for a single one.
      const typed = moveTypedData(chainId, escrow, escrowId, move, nonce, sigDeadline);
      const signature = await account.signTypedData(typed as Parameters<LocalAccount["signTypedData"]>[0]);
      return { signer: account.address, nonce, sigDeadline, signature };
    },

    relayedMove(escrowId, terms, move, signed) {
      const tail = [signed.signer, signed.nonce, signed.sigDeadline, signed.signature] as const;
      const data =
        move.action === "deliver"
          ? encodeFunctionData({
              abi: agentEscrowAbi,
              functionName: "deliverWithSig",
              args: [escrowId, terms, move.deliverableHash, ...tail],
            })
          : move.action === "dispute"
            ? encodeFunctionData({
                abi: agentEscrowAbi,
                functionName: "disputeWithSig",
                args: [escrowId, terms, move.reasonHash, ...tail],
              })
            : encodeFunctionData({
                abi: agentEscrowAbi,
                functionName: move.action === "release" ? "releaseWithSig" : "refundWithSig",
                args: [escrowId, terms, ...tail],
              });
      return { to: escrow, data, purpose: move.action };
    },

    relayedAssignSeller(escrowId, terms, seller, deadline) {
      const data = encodeFunctionData({
        abi: agentEscrowAbi,
        functionName: "assignSeller",
        args: [escrowId, terms, seller, deadline],
      });
      return { to: escrow, data, purpose: "claim" };
    },

    relayedTimeout(escrowId, terms, action, purpose) {
      const data = encodeFunctionData({ abi: agentEscrowAbi, functionName: action, args: [escrowId, terms] });
      return { to: escrow, data, purpose };
    },

    relayedRuling(escrowId, terms, sellerBps) {
      const data = encodeFunctionData({
        abi: agentEscrowAbi,
        functionName: "resolve",
        args: [escrowId, terms, sellerBps],
      });
      return { to: escrow, data, purpose: "resolve" };
    },

    relayedCreditWithdrawal(account) {
      const data = encodeFunctionData({ abi: agentEscrowAbi, functionName: "withdrawCredit", args: [account] });
      return { to: escrow, data, purpose: CREDIT_WITHDRAWAL_PURPOSE };
    },

    async verifyMove(txHash, escrowId, move) {
      const receipt = await publicClient.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
      if (!receipt) throw new ProofRejectedError(`No transaction ${txHash} has been mined on chain ${chainId}`);
      if (receipt.status !== "success") throw new ProofRejectedError(`Transaction ${txHash} reverted`);
      const events = parseEventLogs({ abi: agentEscrowAbi, eventName: MOVE_EVENTS[move.action], logs: receipt.logs });
      const event = events.find(
        (log) => getAddress(log.address) === escrow && log.args.escrowId.toLowerCase() === escrowId.toLowerCase(),
      );
      if (!event) throw new ProofRejectedError(`Transaction ${txHash} did not ${move.action} escrow ${escrowId}`);
      if (
        move.action === "deliver" &&
        "deliverableHash" in event.args &&
        event.args.deliverableHash.toLowerCase() !== move.deliverableHash.toLowerCase()
      ) {
        throw new ProofRejectedError(`Transaction ${txHash} delivered another deliverable than the one submitted`);
      }
      return receipt;
    },
  };
}
