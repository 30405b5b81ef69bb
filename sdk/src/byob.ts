import type { Account, Address, Chain, Hex, PublicClient, Transport, WalletClient } from "viem";
import { registerErc8004 } from "./actions/erc8004/registerErc8004.ts";
import { buyListing } from "./actions/listings/buyListing.ts";
import { confirmFunding } from "./actions/transactions/confirmFunding.ts";
import { deliverWork } from "./actions/transactions/deliverWork.ts";
import { openDispute } from "./actions/transactions/openDispute.ts";
import { refundEscrow } from "./actions/transactions/refundEscrow.ts";
import { releaseEscrow } from "./actions/transactions/releaseEscrow.ts";
import type { Client } from "./client.ts";

/*
 * For external ("bring your own wallet") agents: the API answers a step that needs the agent's own
 * wallet with `instructions` (the calls to send, or EIP-712 typed data to sign for the gasless
 * path). These helpers do that step with a viem wallet and hand the proof back to the API:
 *
 *   const signer = { wallet: createWalletClient({ account, chain, transport: http(rpcUrl) }), publicClient };
 *   const funded = await buyWithWallet(client, signer, listingId);              // approve + fund
 *   await moveWithWallet(client, signer, id, "release", {}, { gasless: true }); // a signature, no gas
 */

/** The agent's wallet (with its account and chain) and a client to wait for receipts. */
export interface WalletSigner {
  wallet: WalletClient<Transport, Chain | undefined, Account>;
  publicClient: PublicClient;
}

export interface ContractCall {
  to: string;
  data: string;
}

export interface StepOptions {
  /** Sign typed data instead of sending transactions: the relayer pays the gas. */
  gasless?: boolean;
}

/** A transaction of a step was mined but reverted. */
export class StepRevertedError extends Error {
  readonly txHash: Hex;
  constructor(txHash: Hex) {
    super(`transaction ${txHash} reverted`);
    this.name = "StepRevertedError";
    this.txHash = txHash;
  }
}

/** Sends `calls` from the wallet one after another, each once the previous is mined; the last hash. */
export async function sendCalls(signer: WalletSigner, calls: ContractCall[]): Promise<Hex> {
  let last: Hex | undefined;
  for (const call of calls) {
    const hash = await signer.wallet.sendTransaction({
      account: signer.wallet.account,
      chain: signer.wallet.chain ?? null,
      to: call.to as Address,
      data: call.data as Hex,
    });
    const receipt = await signer.publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new StepRevertedError(hash);
    last = hash;
  }
  if (!last) throw new Error("no call to send");
  return last;
}

interface JsonTypedData {
  domain: Record<string, unknown>;
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: string;
  message: Record<string, unknown>;
}

/** Typed data as the API sends it (integers as decimal strings), with integers as bigints for signing. */
export function typedDataFromJson(json: unknown) {
  const typed = json as JsonTypedData;
  const integers = (fields: Array<{ name: string; type: string }> | undefined, values: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(values).map(([name, value]) => {
        const type = fields?.find((field) => field.name === name)?.type ?? "";
        return [name, /^u?int\d*$/.test(type) && typeof value === "string" ? BigInt(value) : value];
      }),
    );
  const { chainId, ...domain } = typed.domain;
  return {
    domain: { ...domain, ...(chainId !== undefined && { chainId: Number(chainId) }) },
    types: typed.types,
    primaryType: typed.primaryType,
    message: integers(typed.types[typed.primaryType], typed.message),
  };
}

async function signTyped(
  signer: WalletSigner,
  json: unknown,
): Promise<{ signature: Hex; message: Record<string, unknown> }> {
  const typed = typedDataFromJson(json);
  const signature = await signer.wallet.signTypedData({
    account: signer.wallet.account,
    ...(typed as Parameters<typeof signer.wallet.signTypedData>[0]),
  });
  return { signature, message: typed.message };
}

type Funding = { transaction_id: string; state: string; instructions?: unknown };

interface FundingInstructions {
  calls: ContractCall[];
  gasless?: { typed_data: unknown };
}

/**
 * Funds a PENDING transaction (a buy, a direct transaction, a bounty) from the buyer's wallet:
 * approve + fund, or an EIP-3009 signature on the gasless path; then confirms it with the API.
 */
export async function fundWithWallet(
  client: Client,
  signer: WalletSigner,
  pending: Funding,
  options: StepOptions = {},
) {
  const instructions = pending.instructions as FundingInstructions | undefined;
  if (pending.state !== "PENDING" || !instructions) return pending;
  if (options.gasless && instructions.gasless) {
    const { signature, message } = await signTyped(signer, instructions.gasless.typed_data);
    return confirmFunding(client, {
      id: pending.transaction_id,
      authorization: {
        signature,
        valid_after: String(message.validAfter ?? 0),
        valid_before: String(message.validBefore),
      },
    });
  }
  const txHash = await sendCalls(signer, instructions.calls);
  return confirmFunding(client, { id: pending.transaction_id, tx_hash: txHash });
}

/** A FIXED purchase by an external buyer, to FUNDED: buy, then fund from the wallet and confirm. */
export async function buyWithWallet(
  client: Client,
  signer: WalletSigner,
  listingId: string,
  options: StepOptions & {
    deadlineHours?: number;
    offerId?: string;
    /** The price the buyer was shown: a changed price is refused (409 price_changed), nothing sent. */
    expectedPriceWei?: string;
  } = {},
) {
  const answer = await buyListing(client, {
    id: listingId,
    ...(options.expectedPriceWei !== undefined && { expected_price_wei: options.expectedPriceWei }),
    ...(options.deadlineHours !== undefined && { deadline_hours: options.deadlineHours }),
    ...(options.offerId !== undefined && { offer_id: options.offerId }),
  });
  return fundWithWallet(client, signer, answer as Funding, options);
}

/** The escrow moves a party may make from its own wallet, and the action of each. */
export const WALLET_MOVES = {
  deliver: deliverWork,
  release: releaseEscrow,
  refund: refundEscrow,
  dispute: openDispute,
};
export type WalletMove = keyof typeof WALLET_MOVES;
/** A move's parameters but the transaction's id and the proof (which moveWithWallet adds). */
export type WalletMoveParameters<M extends WalletMove> = Omit<
  NonNullable<Parameters<(typeof WALLET_MOVES)[M]>[1]>,
  "id" | "tx_hash" | "signed"
>;

interface MoveInstructions {
  success: false;
  instructions: { calls: ContractCall[]; typed_data?: unknown };
}

const isInstructions = (answer: unknown): answer is MoveInstructions =>
  typeof answer === "object" &&
  answer !== null &&
  "instructions" in answer &&
  (answer as MoveInstructions).success === false;

/**
 * An escrow move (deliver: deliverWork, release: releaseEscrow, refund: refundEscrow, dispute:
 * openDispute) by an external party: the API answers the call to send (or typed data to sign); this
 * sends it (or signs it) and completes the move.
 */
export async function moveWithWallet<M extends WalletMove>(
  client: Client,
  signer: WalletSigner,
  transactionId: string,
  move: M,
  body: WalletMoveParameters<M>,
  options: StepOptions = {},
) {
  const action = WALLET_MOVES[move] as (client: Client, params: object) => Promise<unknown>;
  const call = (params: object) => action(client, { ...params, id: transactionId });
  const first = await call(body);
  if (!isInstructions(first)) return first;
  if (options.gasless && first.instructions.typed_data) {
    const { signature, message } = await signTyped(signer, first.instructions.typed_data);
    return call({
      ...body,
      signed: { signature, nonce: String(message.nonce), sig_deadline: String(message.sigDeadline) },
    });
  }
  const txHash = await sendCalls(signer, first.instructions.calls);
  return call({ ...body, tx_hash: txHash });
}

/** An external agent's ERC-8004 identity: sends the registration from its wallet and hands it in. */
export async function registerIdentityWithWallet(client: Client, signer: WalletSigner) {
  const first = await registerErc8004(client);
  if (!("call" in first)) return first;
  const txHash = await sendCalls(signer, [first.call]);
  return registerErc8004(client, { tx_hash: txHash });
}
