import { type Address, encodeAbiParameters, type Hex, keccak256, pad, toHex } from "viem";

/**
 * Client-side helpers for the AgentEscrow contract: funding refs and escrow ids, terms hashing, and the EIP-712
 * typed data of the signed actions. They mirror the contract exactly; the contract tests check
 * each one against it.
 */

/** On-chain status of an escrow (the contract's `Status` enum). */
export const EscrowStatus = {
  None: 0,
  Funded: 1,
  Delivered: 2,
  Disputed: 3,
  Released: 4,
  Refunded: 5,
  Resolved: 6,
} as const;
export type EscrowStatus = (typeof EscrowStatus)[keyof typeof EscrowStatus];

/** The terms every escrow call takes back, as emitted at funding (the contract's `Escrow`). */
export interface EscrowTerms {
  buyer: Address;
  seller: Address;
  amount: bigint;
  deadline: number;
  disputeWindow: number;
  deliveredAt: number;
  feeBps: number;
}

const escrowTermsAbi = [
  {
    type: "tuple",
    components: [
      { name: "buyer", type: "address" },
      { name: "seller", type: "address" },
      { name: "amount", type: "uint256" },
      { name: "deadline", type: "uint40" },
      { name: "disputeWindow", type: "uint32" },
      { name: "deliveredAt", type: "uint40" },
      { name: "feeBps", type: "uint16" },
    ],
  },
] as const;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The funding reference of the API's transaction uuid, as `fund` and `fundWithAuthorization` take it
 * (the `ref` of the `Funded` event): the uuid as a number, left-padded to 32 bytes. It is not the
 * escrow's id: that is {@link escrowIdOf}(buyer, ref).
 */
export function escrowRef(uuid: string): Hex {
  if (!UUID_PATTERN.test(uuid)) throw new Error(`not a uuid: ${uuid}`);
  return pad(`0x${uuid.replaceAll("-", "").toLowerCase()}`, { size: 32 });
}

/** The uuid of a funding reference made by {@link escrowRef}; throws for any other bytes32. */
export function uuidOfEscrowRef(ref: Hex): string {
  const hex = ref.slice(2).toLowerCase();
  if (hex.length !== 64 || !/^0{32}[0-9a-f]{32}$/.test(hex)) throw new Error(`not a uuid escrow ref: ${ref}`);
  const h = hex.slice(32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The id of the escrow `buyer` funds under `ref` (the contract's `escrowIdOf`):
 * `keccak256(abi.encode(buyer, ref))`. Every call after funding names the escrow by this id. It is
 * derived from the buyer so that nobody else can take the id of a ref they have seen.
 */
export function escrowIdOf(buyer: Address, ref: Hex): Hex {
  return keccak256(encodeAbiParameters([{ type: "address" }, { type: "bytes32" }], [buyer, ref]));
}

/** The id of the escrow `buyer` funds for the API's transaction `uuid`: escrowIdOf(buyer, escrowRef(uuid)). */
export function escrowIdOfTransaction(buyer: Address, uuid: string): Hex {
  return escrowIdOf(buyer, escrowRef(uuid));
}

/** The terms hash the contract stores (status byte cleared); compare with `escrowState`. */
export function hashEscrowTerms(terms: EscrowTerms): Hex {
  const hash = BigInt(keccak256(encodeAbiParameters(escrowTermsAbi, [terms])));
  return toHex(hash & ~0xffn, { size: 32 });
}

/**
 * The EIP-3009 nonce a buyer signs to fund these terms with `fundWithAuthorization`. `escrowId` is
 * the derived id, {@link escrowIdOf}(buyer, ref), so the nonce binds the buyer and the ref too.
 */
export function fundingNonce(escrowId: Hex, seller: Address, deadline: number, disputeWindow: number): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: "bytes32" }, { type: "address" }, { type: "uint40" }, { type: "uint32" }],
      [escrowId, seller, deadline, disputeWindow],
    ),
  );
}

/** EIP-712 domain of the escrow's signed actions. */
export function escrowDomain(chainId: number, verifyingContract: Address) {
  return { name: "AgentEscrow", version: "1", chainId, verifyingContract } as const;
}

/** EIP-712 types of the escrow's signed actions (`<action>WithSig`). */
export const escrowActionTypes = {
  AssignSeller: [
    { name: "escrowId", type: "bytes32" },
    { name: "seller", type: "address" },
    { name: "deadline", type: "uint40" },
    { name: "nonce", type: "uint256" },
    { name: "sigDeadline", type: "uint256" },
  ],
  Deliver: [
    { name: "escrowId", type: "bytes32" },
    { name: "deliverableHash", type: "bytes32" },
    { name: "nonce", type: "uint256" },
    { name: "sigDeadline", type: "uint256" },
  ],
  Release: [
    { name: "escrowId", type: "bytes32" },
    { name: "nonce", type: "uint256" },
    { name: "sigDeadline", type: "uint256" },
  ],
  Refund: [
    { name: "escrowId", type: "bytes32" },
    { name: "nonce", type: "uint256" },
    { name: "sigDeadline", type: "uint256" },
  ],
  Dispute: [
    { name: "escrowId", type: "bytes32" },
    { name: "reasonHash", type: "bytes32" },
    { name: "nonce", type: "uint256" },
    { name: "sigDeadline", type: "uint256" },
  ],
} as const;

/** EIP-712 types of USDC's `receiveWithAuthorization` (EIP-3009). */
export const receiveWithAuthorizationTypes = {
  ReceiveWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/** EIP-712 types of USDC's `transferWithAuthorization` (EIP-3009): gasless transfers out of a wallet. */
export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;
