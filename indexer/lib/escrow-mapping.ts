import { type EscrowStatus as ContractStatus, type EscrowTerms, uuidOfEscrowRef } from "@agent-marketplace/contracts";
import type { Address, Hex } from "viem";

/**
 * Pure rules that turn AgentEscrow logs into rows: the state each event leads to, the timeline
 * row, and what each event adds to the per-address and per-chain figures. The Ponder handlers in
 * src/ only read and write rows; everything they decide is here, unit-tested.
 */

export const ZERO_ADDRESS: Address = "0x0000000000000000000000000000000000000000";

/** The `status` column of chain.escrow: the contract's Status enum by name. */
export const ESCROW_STATES = ["FUNDED", "DELIVERED", "DISPUTED", "RELEASED", "REFUNDED", "RESOLVED"] as const;
export type EscrowState = (typeof ESCROW_STATES)[number];

/** The `kind` column of chain.escrow_event: one per escrow-contract log the indexer keeps. */
export const ESCROW_EVENT_KINDS = [
  "FUNDED",
  "SELLER_ASSIGNED",
  "DELIVERED",
  "DISPUTED",
  "RELEASED",
  "REFUNDED",
  "RESOLVED",
  "CREDITED",
  "CREDIT_WITHDRAWN",
] as const;
export type EscrowEventKind = (typeof ESCROW_EVENT_KINDS)[number];

/** The status byte the contract reports for a state name (`escrowState(id).status`). */
export const CONTRACT_STATUS: Readonly<Record<EscrowState, ContractStatus>> = {
  FUNDED: 1,
  DELIVERED: 2,
  DISPUTED: 3,
  RELEASED: 4,
  REFUNDED: 5,
  RESOLVED: 6,
};

/** The state name of the contract's status byte; undefined for None (no escrow). */
export function stateOfContractStatus(status: number): EscrowState | undefined {
  return ESCROW_STATES.find((state) => CONTRACT_STATUS[state] === status);
}

/** Settled escrows cannot change any more. */
export function isTerminal(state: EscrowState): boolean {
  return state === "RELEASED" || state === "REFUNDED" || state === "RESOLVED";
}

/**
 * The API's transaction uuid of the escrow `escrowId` funded under `ref`: the uuid itself when the
 * ref is one left-padded (escrowRef(uuid), every funding the API instructs), else the uuid derived
 * from the escrow's id ({@link uuidOfEscrowId}), which is how the API names the transaction of an
 * x402 payment, whose ref is the random nonce the buyer's client drew. Escrows of different buyers
 * under one padded ref share its uuid (anyone may fund any ref); a derived uuid is the escrow's own.
 */
export function uuidOfFundingRef(ref: Hex, escrowId: Hex): string {
  try {
    return uuidOfEscrowRef(ref);
  } catch {
    return uuidOfEscrowId(escrowId);
  }
}

/**
 * The uuid of an escrow whose ref is no uuid: its id's first 16 bytes as a version-8 uuid (RFC 9562,
 * "custom"; the variant bits are 10). The API's own transaction ids are random version-4 uuids, so
 * the two never meet; the id, escrowIdOf(buyer, ref), binds the buyer and the ref, so the API can
 * name an x402 payment's transaction before it is funded and one buyer's nonce names nobody else's.
 */
export function uuidOfEscrowId(escrowId: Hex): string {
  const hex = escrowId.slice(2, 34).toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new Error(`not an escrow id: ${escrowId}`);
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Where and when a log happened. */
export interface LogMeta {
  id: string;
  txHash: Hex;
  txFrom: Address;
  logIndex: number;
  blockNumber: bigint;
  blockTimestamp: bigint;
}

/** The terms columns of a chain.escrow row, as Ponder returns them. */
export interface EscrowTermsRow {
  buyer: Hex;
  seller: Hex;
  amount: bigint;
  deadline: bigint;
  disputeWindow: number;
  deliveredAt: bigint;
  feeBps: number;
}

/**
 * The terms every later contract call takes back, rebuilt from an indexed row. Their hash is the
 * one `escrowState(id)` returns, so a caller never needs to read the chain to act on an escrow.
 */
export function termsOf(row: EscrowTermsRow): EscrowTerms {
  return {
    buyer: row.buyer,
    seller: row.seller,
    amount: row.amount,
    deadline: Number(row.deadline),
    disputeWindow: row.disputeWindow,
    deliveredAt: Number(row.deliveredAt),
    feeBps: row.feeBps,
  };
}

export interface FundedArgs {
  escrowId: Hex;
  buyer: Address;
  seller: Address;
  /** The funder's reference: the API's uuid as escrowRef(uuid), or any bytes32 of another funder. */
  ref: Hex;
  amount: bigint;
  deadline: number;
  disputeWindow: number;
  feeBps: number;
}

/**
 * The chain.escrow row a Funded log creates. Its uuid comes from the event's ref (or, for a ref
 * that is no uuid, from the escrow's id: uuidOfFundingRef): escrows of different buyers funded
 * under the same uuid ref share it (anyone may fund any ref), so a reader finds the API's escrow by
 * uuid and buyer, with every term matching.
 */
export function fundedEscrowRow(chainId: number, args: FundedArgs, meta: LogMeta) {
  const seller = lower(args.seller);
  return {
    chainId,
    id: lower(args.escrowId),
    uuid: uuidOfFundingRef(args.ref, args.escrowId),
    status: "FUNDED" as EscrowState,
    buyer: lower(args.buyer),
    seller,
    amount: args.amount,
    deadline: BigInt(args.deadline),
    disputeWindow: args.disputeWindow,
    deliveredAt: 0n,
    feeBps: args.feeBps,
    isBounty: seller === ZERO_ADDRESS,
    fundedTxHash: meta.txHash,
    fundedBlock: meta.blockNumber,
    fundedAt: meta.blockTimestamp,
    updatedBlock: meta.blockNumber,
  };
}

/** The chain.escrow columns of the step that settled the escrow (release, refund or ruling). */
export function settlementStep(actor: Hex, meta: LogMeta) {
  return {
    settledBy: lower(actor),
    settledAt: meta.blockTimestamp,
    settledTxHash: meta.txHash,
    settledBlock: meta.blockNumber,
    updatedBlock: meta.blockNumber,
  };
}

/** What a chain.escrow_event row holds beyond its kind and place in the chain. */
export interface EventData {
  escrowId?: Hex | null;
  actor: Address;
  amount?: bigint | null;
  buyerAmount?: bigint | null;
  fee?: bigint | null;
  seller?: Address | null;
  dataHash?: Hex | null;
  sellerBps?: number | null;
}

/** The chain.escrow_event row of one log. */
export function eventRow(chainId: number, kind: EscrowEventKind, data: EventData, meta: LogMeta) {
  return {
    chainId,
    id: meta.id,
    kind,
    escrowId: data.escrowId ? lower(data.escrowId) : null,
    actor: lower(data.actor),
    amount: data.amount ?? null,
    buyerAmount: data.buyerAmount ?? null,
    fee: data.fee ?? null,
    seller: data.seller ? lower(data.seller) : null,
    dataHash: data.dataHash ?? null,
    sellerBps: data.sellerBps ?? null,
    txHash: meta.txHash,
    txFrom: lower(meta.txFrom),
    logIndex: meta.logIndex,
    blockNumber: meta.blockNumber,
    blockTimestamp: meta.blockTimestamp,
  };
}

/** The counters and sums of chain.account_stats. */
export interface AccountFigures {
  escrowsAsBuyer: number;
  escrowsAsSeller: number;
  releasedAsBuyer: number;
  releasedAsSeller: number;
  refundedAsBuyer: number;
  refundedAsSeller: number;
  disputedAsBuyer: number;
  disputedAsSeller: number;
  resolvedAsBuyer: number;
  resolvedAsSeller: number;
  volumeAsBuyer: bigint;
  volumeAsSeller: bigint;
  earned: bigint;
  refundedToBuyer: bigint;
  lockedAsBuyer: bigint;
}

/** The figures of chain.escrow_totals. */
export interface TotalFigures {
  escrows: number;
  released: number;
  refunded: number;
  resolved: number;
  disputed: number;
  fundedVolume: bigint;
  settledVolume: bigint;
  feesCollected: bigint;
  locked: bigint;
  credits: bigint;
}

export const ZERO_ACCOUNT_FIGURES: Readonly<AccountFigures> = {
  escrowsAsBuyer: 0,
  escrowsAsSeller: 0,
  releasedAsBuyer: 0,
  releasedAsSeller: 0,
  refundedAsBuyer: 0,
  refundedAsSeller: 0,
  disputedAsBuyer: 0,
  disputedAsSeller: 0,
  resolvedAsBuyer: 0,
  resolvedAsSeller: 0,
  volumeAsBuyer: 0n,
  volumeAsSeller: 0n,
  earned: 0n,
  refundedToBuyer: 0n,
  lockedAsBuyer: 0n,
};

export const ZERO_TOTAL_FIGURES: Readonly<TotalFigures> = {
  escrows: 0,
  released: 0,
  refunded: 0,
  resolved: 0,
  disputed: 0,
  fundedVolume: 0n,
  settledVolume: 0n,
  feesCollected: 0n,
  locked: 0n,
  credits: 0n,
};

/** A change to some figures: each field is added (numbers to numbers, bigints to bigints). */
export type Delta<T> = { [K in keyof T]?: T[K] };

/** `figures` with `delta` added, field by field. Fields of `figures` the delta leaves out stay. */
export function addDelta<T extends object>(figures: T, delta: Delta<T>): T {
  const out = { ...figures } as Record<string, unknown>;
  for (const [key, change] of Object.entries(delta)) {
    if (change === undefined) continue;
    const current = out[key] as number | bigint | undefined;
    out[key] =
      typeof change === "bigint"
        ? ((current as bigint | undefined) ?? 0n) + change
        : ((current as number) ?? 0) + (change as number);
  }
  return out as T;
}

/** One address's share of an event. */
export interface AccountDelta {
  address: Hex;
  delta: Delta<AccountFigures>;
}

/** The parties of an escrow, as the stats need them. */
export interface Parties {
  buyer: Hex;
  seller: Hex;
  amount: bigint;
}

/** Account deltas with the ones for the same address merged, the zero address dropped. */
function byAddress(entries: AccountDelta[]): AccountDelta[] {
  const merged = new Map<Hex, Delta<AccountFigures>>();
  for (const { address, delta } of entries) {
    if (address === ZERO_ADDRESS) continue;
    const key = lower(address);
    merged.set(key, addDelta(merged.get(key) ?? {}, delta));
  }
  return [...merged].map(([address, delta]) => ({ address, delta }));
}

/**
 * `deltas` with each of `parties` named, an empty delta for a party they leave out: every party of
 * an escrow's event then has its account row's `lastEvent` moved (the API's kept profiles compare it).
 */
export function withEveryParty(deltas: AccountDelta[], parties: Hex[]): AccountDelta[] {
  return byAddress([...deltas, ...parties.map((address) => ({ address, delta: {} }))]);
}

export function accountDeltasOnFunded(escrow: Parties): AccountDelta[] {
  return byAddress([
    { address: escrow.buyer, delta: { escrowsAsBuyer: 1, lockedAsBuyer: escrow.amount } },
    { address: escrow.seller, delta: { escrowsAsSeller: 1 } },
  ]);
}

/** A bounty's seller was assigned, or a lapsed escrow's seller replaced: the escrow moves to `seller`. */
export function accountDeltasOnAssigned(previousSeller: Hex, seller: Hex): AccountDelta[] {
  if (lower(previousSeller) === lower(seller)) return [];
  return byAddress([
    { address: previousSeller, delta: { escrowsAsSeller: -1 } },
    { address: seller, delta: { escrowsAsSeller: 1 } },
  ]);
}

export function accountDeltasOnDisputed(escrow: Parties): AccountDelta[] {
  return byAddress([
    { address: escrow.buyer, delta: { disputedAsBuyer: 1 } },
    { address: escrow.seller, delta: { disputedAsSeller: 1 } },
  ]);
}

export function accountDeltasOnReleased(escrow: Parties, sellerAmount: bigint, fee: bigint): AccountDelta[] {
  const sellerSide = sellerAmount + fee;
  return byAddress([
    { address: escrow.buyer, delta: { releasedAsBuyer: 1, volumeAsBuyer: sellerSide, lockedAsBuyer: -escrow.amount } },
    { address: escrow.seller, delta: { releasedAsSeller: 1, volumeAsSeller: sellerSide, earned: sellerAmount } },
  ]);
}

export function accountDeltasOnRefunded(escrow: Parties, amount: bigint): AccountDelta[] {
  return byAddress([
    { address: escrow.buyer, delta: { refundedAsBuyer: 1, refundedToBuyer: amount, lockedAsBuyer: -escrow.amount } },
    { address: escrow.seller, delta: { refundedAsSeller: 1 } },
  ]);
}

export function accountDeltasOnResolved(
  escrow: Parties,
  sellerAmount: bigint,
  buyerAmount: bigint,
  fee: bigint,
): AccountDelta[] {
  const sellerSide = sellerAmount + fee;
  return byAddress([
    {
      address: escrow.buyer,
      delta: {
        resolvedAsBuyer: 1,
        volumeAsBuyer: sellerSide,
        refundedToBuyer: buyerAmount,
        lockedAsBuyer: -escrow.amount,
      },
    },
    { address: escrow.seller, delta: { resolvedAsSeller: 1, volumeAsSeller: sellerSide, earned: sellerAmount } },
  ]);
}

/** What each event adds to the chain's totals. */
export const totalsDelta = {
  funded: (amount: bigint): Delta<TotalFigures> => ({ escrows: 1, fundedVolume: amount, locked: amount }),
  disputed: (): Delta<TotalFigures> => ({ disputed: 1 }),
  released: (amount: bigint, sellerAmount: bigint, fee: bigint): Delta<TotalFigures> => ({
    released: 1,
    settledVolume: sellerAmount + fee,
    feesCollected: fee,
    locked: -amount,
  }),
  refunded: (amount: bigint): Delta<TotalFigures> => ({ refunded: 1, locked: -amount }),
  resolved: (amount: bigint, sellerAmount: bigint, fee: bigint): Delta<TotalFigures> => ({
    resolved: 1,
    settledVolume: sellerAmount + fee,
    feesCollected: fee,
    locked: -amount,
  }),
  credited: (amount: bigint): Delta<TotalFigures> => ({ credits: amount }),
  creditWithdrawn: (amount: bigint): Delta<TotalFigures> => ({ credits: -amount }),
};

/** The ERC-8004 agent wallet in a MetadataSet value: 20 bytes, or empty when cleared. */
export function agentWalletOf(value: Hex): Hex | null {
  return value.length === 42 ? lower(value) : null;
}

function lower<T extends string>(value: T): T {
  return value.toLowerCase() as T;
}
