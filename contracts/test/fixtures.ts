/**
 * Shared deployment and client-side helpers of the escrow integration tests.
 *
 * The escrow runs against either token: MockUSDC (the local chains' stand-in) or Circle's USDC
 * (FiatToken v2.2 behind its proxy, see src/circle-usdc.ts). Both are driven through USDC's ABI;
 * where they refuse a call, they say so differently ({@link assertTokenRefused}).
 *
 * The helpers do what a client (the API, the indexer) does: funding refs from uuids, escrow ids
 * derived from the buyer and the ref, terms rebuilt
 * from the escrow's events, token balances read on chain.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { ContractReturnType } from "@nomicfoundation/hardhat-viem/types";
import { network } from "hardhat";
import {
  type Address,
  getAddress,
  getContract,
  type Hex,
  type LocalAccount,
  type Log,
  parseEventLogs,
  parseSignature,
  type TransactionReceipt,
  type TypedDataDomain,
  toHex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { deployCircleUsdc, mintCircleUsdc } from "../src/circle-usdc.ts";
import {
  type EscrowStatus,
  type EscrowTerms,
  escrowIdOf,
  escrowRef,
  fundingNonce,
  hashEscrowTerms,
  receiveWithAuthorizationTypes,
  transferWithAuthorizationTypes,
} from "../src/escrow.ts";
import { fiatTokenAbi, mockUsdcAbi } from "../src/generated/abis.ts";

export const connection = await network.create();
export const { viem, networkHelpers } = connection;
export const publicClient = await viem.getPublicClient();

export const DAY = 86_400;
export const USDC = 1_000_000n;
export const BPS = 10_000n;
export const FEE_BPS = 100;
export const MAX_FEE_BPS = 1_000;
export const STARTING_BALANCE = 1_000_000n * USDC;

export type Wallet = Awaited<ReturnType<typeof viem.getWalletClients>>[number];
export type Escrow = ContractReturnType<"AgentEscrow">;

/** The tokens the escrow is tested against. */
export const USDC_KINDS = ["MockUSDC", "Circle USDC"] as const;
export type UsdcKind = (typeof USDC_KINDS)[number];

/** USDC at `address` through its ABI (MockUSDC implements the same calls and events), to read. */
export function usdcAt(address: Address) {
  return getContract({ address, abi: fiatTokenAbi, client: publicClient });
}

/** USDC at `address`, to send `wallet`'s calls. */
export function usdcAs(address: Address, wallet: Wallet) {
  return getContract({ address, abi: fiatTokenAbi, client: { public: publicClient, wallet } });
}
export type Usdc = ReturnType<typeof usdcAt>;

/**
 * The token of `kind`, owned by `owner`, holding `amount` for each of `holders`. On Circle's USDC
 * the owner holds every role (master minter, pauser, blacklister) and `proxyAdmin`, which may not
 * call the token, administers the proxy. On MockUSDC the owner is the blacklister.
 */
export async function deployUsdc(
  kind: UsdcKind,
  roles: { owner: Wallet; proxyAdmin: Wallet },
  holders: readonly Address[],
  amount: bigint,
): Promise<Address> {
  const { owner } = roles;
  if (kind === "MockUSDC") {
    const usdc = await viem.deployContract("MockUSDC", [owner.account.address]);
    for (const holder of holders) await mined(usdc.write.mint([holder, amount]));
    return usdc.address;
  }
  const { address } = await deployCircleUsdc({
    wallet: owner,
    publicClient,
    admin: roles.proxyAdmin.account.address,
    owner: owner.account.address,
  });
  await mintCircleUsdc({ wallet: owner, publicClient, token: address, to: holders, amount });
  return address;
}

/**
 * The token of `kind` (see {@link deployUsdc}) and AgentEscrow (fee 100 bps, cap 1,000 bps), a
 * second AgentEscrow on the same token (for cross-contract signature checks), and every party's
 * wallet and contract handles. The buyer, seller, relayer and stranger hold 1,000,000 USDC each;
 * the fee recipient, arbiter and operator hold nothing. The owner owns the escrows and the token
 * (and holds the token's roles).
 */
export async function deployEscrowFixture(token: UsdcKind) {
  const wallets = await viem.getWalletClients();
  const [owner, buyer, seller, feeRecipient, arbiter, operator, relayer, stranger, proxyAdmin] = wallets;
  if (!owner || !buyer || !seller || !feeRecipient || !arbiter || !operator || !relayer || !stranger || !proxyAdmin) {
    throw new Error("need 9 accounts");
  }
  const usdcAddress = await deployUsdc(
    token,
    { owner, proxyAdmin },
    [buyer, seller, relayer, stranger].map((wallet) => wallet.account.address),
    STARTING_BALANCE,
  );
  const usdc = usdcAt(usdcAddress);
  const roles = [feeRecipient.account.address, arbiter.account.address, operator.account.address] as const;
  const escrow = await viem.deployContract("AgentEscrow", [
    usdc.address,
    MAX_FEE_BPS,
    FEE_BPS,
    ...roles,
    owner.account.address,
  ]);
  const otherEscrow = await viem.deployContract("AgentEscrow", [
    usdc.address,
    MAX_FEE_BPS,
    FEE_BPS,
    ...roles,
    owner.account.address,
  ]);

  const escrowAs = (wallet: Wallet) => viem.getContractAt("AgentEscrow", escrow.address, { client: { wallet } });
  const usdcOf = (wallet: Wallet) => usdcAs(usdc.address, wallet);

  const wallet = { owner, buyer, seller, feeRecipient, arbiter, operator, relayer, stranger };
  return {
    token,
    chainId: await publicClient.getChainId(),
    usdc,
    escrow,
    otherEscrow,
    wallets: wallet,
    /** Checksummed addresses, as viem decodes them from events and errors. */
    addr: Object.fromEntries(
      Object.entries(wallet).map(([role, w]) => [role, getAddress(w.account.address)]),
    ) as Record<keyof typeof wallet, Address>,
    as: {
      buyer: await escrowAs(buyer),
      seller: await escrowAs(seller),
      arbiter: await escrowAs(arbiter),
      operator: await escrowAs(operator),
      relayer: await escrowAs(relayer),
      stranger: await escrowAs(stranger),
    },
    usdcAs: {
      owner: usdcOf(owner),
      buyer: usdcOf(buyer),
      relayer: usdcOf(relayer),
      stranger: usdcOf(stranger),
    },
  };
}

export type EscrowFixture = Awaited<ReturnType<typeof deployEscrowFixture>>;

// loadFixture tells fixtures apart by function: one named function per token.
const fixtures: Record<UsdcKind, () => Promise<EscrowFixture>> = {
  MockUSDC: async function escrowOnMockUsdc() {
    return deployEscrowFixture("MockUSDC");
  },
  "Circle USDC": async function escrowOnCircleUsdc() {
    return deployEscrowFixture("Circle USDC");
  },
};

export const loadEscrowFixture = (token: UsdcKind) => networkHelpers.loadFixture(fixtures[token]);

/** How the token refuses a call: each token words it its own way. */
export type TokenRefusal =
  | { reason: "blacklisted"; account: Address }
  | { reason: "paused" }
  | { reason: "invalidSignature" }
  | { reason: "authorizationUsedOrCanceled"; authorizer: Address; nonce: Hex }
  | { reason: "authorizationExpired"; validBefore: bigint }
  | { reason: "authorizationNotYetValid"; validAfter: bigint }
  | { reason: "callerMustBePayee"; caller: Address; payee: Address };

/** FiatToken v2.2's revert reasons. */
const CIRCLE_REASONS: Record<TokenRefusal["reason"], string> = {
  blacklisted: "Blacklistable: account is blacklisted",
  paused: "Pausable: paused",
  invalidSignature: "FiatTokenV2: invalid signature",
  authorizationUsedOrCanceled: "FiatTokenV2: authorization is used or canceled",
  authorizationExpired: "FiatTokenV2: authorization is expired",
  authorizationNotYetValid: "FiatTokenV2: authorization is not yet valid",
  callerMustBePayee: "FiatTokenV2: caller must be the payee",
};

/**
 * Checks that `submission` reverted because the token refused it (the escrow passes the token's
 * revert through): with Circle's reason string, or MockUSDC's custom error and its arguments.
 */
export async function assertTokenRefused(f: EscrowFixture, submission: Promise<Hex>, refusal: TokenRefusal) {
  if (f.token === "Circle USDC") return viem.assertions.revertWith(submission, CIRCLE_REASONS[refusal.reason]);
  const mock = { abi: mockUsdcAbi, address: f.usdc.address };
  const { revertWithCustomErrorWithArgs: refused } = viem.assertions;
  switch (refusal.reason) {
    case "blacklisted":
      return refused(submission, mock, "MockUSDC_Blacklisted", [refusal.account]);
    case "paused":
      throw new Error("MockUSDC cannot be paused");
    case "invalidSignature":
      return refused(submission, mock, "MockUSDC_InvalidSignature", []);
    case "authorizationUsedOrCanceled":
      return refused(submission, mock, "MockUSDC_AuthorizationUsedOrCanceled", [refusal.authorizer, refusal.nonce]);
    case "authorizationExpired":
      return refused(submission, mock, "MockUSDC_AuthorizationExpired", [refusal.validBefore]);
    case "authorizationNotYetValid":
      return refused(submission, mock, "MockUSDC_AuthorizationNotYetValid", [refusal.validAfter]);
    case "callerMustBePayee":
      return refused(submission, mock, "MockUSDC_CallerMustBePayee", [refusal.caller, refusal.payee]);
  }
}

/*//////////////////////////////////////////////////////////////
                           CLIENT HELPERS
//////////////////////////////////////////////////////////////*/

/** A fresh API transaction: its uuid and the funding ref made from it (the escrow id also needs the buyer). */
export function newEscrowRef(): { uuid: string; ref: Hex } {
  const uuid = randomUUID();
  return { uuid, ref: escrowRef(uuid) };
}

/** Timestamp of the latest block. */
export async function now(): Promise<number> {
  return networkHelpers.time.latest();
}

/** Waits for the transaction and checks that it succeeded. */
export async function mined(hash: Hex | Promise<Hex>): Promise<TransactionReceipt> {
  const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
  assert.equal(receipt.status, "success");
  return receipt;
}

/**
 * Applies the escrow's events, in order, to the terms of `escrowId`, as the indexer does: Funded
 * sets them, SellerAssigned changes seller and deadline, Delivered sets deliveredAt to its block's
 * timestamp. Returns undefined when there is no Funded event for the id.
 */
export async function termsFromLogs(
  escrow: Escrow,
  escrowId: Hex,
  logs: Log[],
  initial?: EscrowTerms,
): Promise<EscrowTerms | undefined> {
  const events = parseEventLogs({
    abi: escrow.abi,
    logs: logs.filter((log) => log.address.toLowerCase() === escrow.address.toLowerCase()),
    eventName: ["Funded", "SellerAssigned", "Delivered"],
  });
  let terms = initial;
  for (const event of events) {
    if (event.args.escrowId !== escrowId) continue;
    switch (event.eventName) {
      case "Funded": {
        const { buyer, seller, amount, deadline, disputeWindow, feeBps } = event.args;
        terms = { buyer, seller, amount, deadline, disputeWindow, deliveredAt: 0, feeBps };
        break;
      }
      case "SellerAssigned": {
        assert.ok(terms, "SellerAssigned before Funded");
        terms = { ...terms, seller: event.args.seller, deadline: event.args.deadline };
        break;
      }
      case "Delivered": {
        assert.ok(terms, "Delivered before Funded");
        const block = await publicClient.getBlock({ blockNumber: event.blockNumber });
        terms = { ...terms, deliveredAt: Number(block.timestamp) };
        break;
      }
    }
  }
  return terms;
}

/** The terms of `escrowId` rebuilt from every event of the escrow contract since genesis. */
export async function indexTerms(escrow: Escrow, escrowId: Hex): Promise<EscrowTerms> {
  const logs = await publicClient.getLogs({ address: escrow.address, fromBlock: 0n, toBlock: "latest" });
  const terms = await termsFromLogs(escrow, escrowId, logs);
  assert.ok(terms, `no Funded event for ${escrowId}`);
  return terms;
}

/** The terms after one transaction: from its receipt's events, applied to `previous`. */
export async function termsAfter(
  escrow: Escrow,
  escrowId: Hex,
  receipt: TransactionReceipt,
  previous?: EscrowTerms,
): Promise<EscrowTerms> {
  const terms = await termsFromLogs(escrow, escrowId, receipt.logs, previous);
  assert.ok(terms, `no Funded event for ${escrowId}`);
  return terms;
}

/**
 * The buyer approves exactly `amount` and funds under `ref` (a fresh one by default); returns the
 * escrow's id, escrowIdOf(buyer, ref), and the terms as emitted.
 */
export async function fundEscrow(
  f: EscrowFixture,
  opts: { ref?: Hex; seller?: Address; amount: bigint; deadline?: number; disputeWindow?: number },
): Promise<{ id: Hex; ref: Hex; terms: EscrowTerms; receipt: TransactionReceipt }> {
  const ref = opts.ref ?? newEscrowRef().ref;
  const id = escrowIdOf(f.addr.buyer, ref);
  const seller = opts.seller ?? f.addr.seller;
  const deadline = opts.deadline ?? (await now()) + 7 * DAY;
  const disputeWindow = opts.disputeWindow ?? DAY;
  await mined(f.usdcAs.buyer.write.approve([f.escrow.address, opts.amount]));
  const receipt = await mined(f.as.buyer.write.fund([ref, seller, opts.amount, deadline, disputeWindow]));
  const terms = await termsAfter(f.escrow, id, receipt);
  return { id, ref, terms, receipt };
}

/**
 * Checks the escrow's stored status, and that its stored hash is `hashEscrowTerms(terms)` and the
 * contract's own `hashTerms(terms)`.
 */
export async function assertStored(f: EscrowFixture, id: Hex, status: EscrowStatus, terms: EscrowTerms) {
  const [storedStatus, storedHash] = await f.escrow.read.escrowState([id]);
  assert.equal(storedStatus, status);
  assert.equal(storedHash, hashEscrowTerms(terms));
  assert.equal(await f.escrow.read.hashTerms([terms]), storedHash);
}

/** Status of the escrow, as stored. */
export async function statusOf(f: EscrowFixture, id: Hex): Promise<number> {
  return (await f.escrow.read.escrowState([id]))[0];
}

/** Token balances of the given accounts. */
export async function balancesOf(usdc: Usdc, accounts: readonly Address[]): Promise<bigint[]> {
  return Promise.all(accounts.map((account) => usdc.read.balanceOf([account])));
}

/**
 * Records the token balances of `accounts` now; `assertChanged` later checks the exact change of
 * each (zero for those not listed).
 */
export async function balanceTracker(usdc: Usdc, accounts: Record<string, Address>) {
  const names = Object.keys(accounts);
  const addresses = Object.values(accounts);
  const before = await balancesOf(usdc, addresses);
  return {
    before: Object.fromEntries(names.map((name, i) => [name, before[i] ?? 0n])),
    async assertChanged(expected: Record<string, bigint>) {
      for (const name of Object.keys(expected)) assert.ok(names.includes(name), `untracked account ${name}`);
      const after = await balancesOf(usdc, addresses);
      const actual = Object.fromEntries(names.map((name, i) => [name, (after[i] ?? 0n) - (before[i] ?? 0n)]));
      const wanted = Object.fromEntries(names.map((name) => [name, expected[name] ?? 0n]));
      assert.deepEqual(actual, wanted);
    },
  };
}

/*//////////////////////////////////////////////////////////////
                 FUNDING WITH AN EIP-3009 AUTHORIZATION
//////////////////////////////////////////////////////////////*/

/** The token's EIP-712 domain, as on Base: what EIP-3009 authorizations are signed over. */
export function usdcDomain(f: EscrowFixture) {
  return { name: "USD Coin", version: "2", chainId: f.chainId, verifyingContract: f.usdc.address } as const;
}

export interface FundingTerms {
  /** The funding ref; the escrow's id is escrowIdOf(buyer, ref). */
  ref: Hex;
  buyer: Address;
  seller: Address;
  amount: bigint;
  deadline: number;
  disputeWindow: number;
  validAfter: bigint;
  validBefore: bigint;
}

export interface AuthorizeFundingOptions {
  /** Terms other than the defaults (a fresh ref, the buyer, the seller, 20 USDC, 7 days, ...). */
  terms?: Partial<FundingTerms>;
  /** Who signs; the buyer by default. */
  by?: Wallet;
  /** The payee signed for; the escrow by default. */
  to?: Address;
  /** Changes to the EIP-712 domain signed over; the token's own (USD Coin, 2, chain, token) by default. */
  domain?: Partial<TypedDataDomain>;
}

/**
 * The buyer's funding terms and its EIP-3009 ReceiveWithAuthorization signature over them, as a
 * client makes it for {@link submitFunding}.
 */
export async function authorizeFunding(f: EscrowFixture, opts: AuthorizeFundingOptions = {}) {
  const start = await now();
  const terms: FundingTerms = {
    ref: newEscrowRef().ref,
    buyer: f.addr.buyer,
    seller: f.addr.seller,
    amount: 20n * USDC,
    deadline: start + 7 * DAY,
    disputeWindow: DAY,
    validAfter: 0n,
    validBefore: BigInt(start + 3_600),
    ...opts.terms,
  };
  // The nonce is over the derived id: it binds the buyer and the ref as well as the terms.
  const id = escrowIdOf(terms.buyer, terms.ref);
  const nonce = fundingNonce(id, terms.seller, terms.deadline, terms.disputeWindow);
  const signature = await (opts.by ?? f.wallets.buyer).signTypedData({
    domain: { ...usdcDomain(f), ...opts.domain },
    types: receiveWithAuthorizationTypes,
    primaryType: "ReceiveWithAuthorization",
    message: {
      from: terms.buyer,
      to: opts.to ?? f.escrow.address,
      value: terms.amount,
      validAfter: terms.validAfter,
      validBefore: terms.validBefore,
      nonce,
    },
  });
  const { v, r, s } = parseSignature(signature);
  assert.ok(v !== undefined);
  return { terms, id, nonce, v: Number(v), r, s };
}

/** The relayer submits `fundWithAuthorization` with `terms` (possibly not those signed). */
export function submitFunding(f: EscrowFixture, terms: FundingTerms, sig: { v: number; r: Hex; s: Hex }) {
  return f.as.relayer.write.fundWithAuthorization([
    terms.ref,
    terms.buyer,
    terms.seller,
    terms.amount,
    terms.deadline,
    terms.disputeWindow,
    { validAfter: terms.validAfter, validBefore: terms.validBefore, v: sig.v, r: sig.r, s: sig.s },
  ]);
}

/*//////////////////////////////////////////////////////////////
                 FUNDING WITH AN x402 PAYMENT
//////////////////////////////////////////////////////////////*/

/** What an x402 client signs and the operator passes to `fundWithTransfer` (the contract's struct). */
export interface TransferAuthorization {
  from: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
}

/** x402's `maxTimeoutSeconds` in the payment requirements of these tests: validBefore = now + this. */
export const X402_TIMEOUT_SECONDS = 300;

/** Creates `amount` of the token for `to`: MockUSDC's faucet, or Circle's master minter. */
export async function mintUsdc(f: EscrowFixture, to: Address, amount: bigint): Promise<void> {
  if (f.token === "MockUSDC") {
    await mined(f.usdcAs.owner.write.mint([to, amount]));
    return;
  }
  await mintCircleUsdc({ wallet: f.wallets.owner, publicClient, token: f.usdc.address, to, amount });
}

/**
 * An x402 buyer: a fresh key (a viem local account, as an x402 client holds) with `amount` USDC and
 * no ETH, no allowance and no API key: it signs, and never sends a transaction.
 */
export async function newKeylessBuyer(f: EscrowFixture, amount: bigint): Promise<LocalAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await mintUsdc(f, account.address, amount);
  assert.equal(await publicClient.getBalance({ address: account.address }), 0n);
  return account;
}

export interface X402PaymentOptions {
  /** Who signs: the payer's key, held by the client as a viem account. */
  signer: LocalAccount;
  /** The payer; the signer's own address by default (a smart-contract wallet's address otherwise). */
  from?: Address;
  value: bigint;
  /** The payee signed for; the escrow by default (x402's payTo). */
  to?: Address;
  /** Defaults as a stock x402 client: validAfter = now - 600, validBefore = now + maxTimeoutSeconds. */
  validAfter?: bigint;
  validBefore?: bigint;
  /** Defaults to 32 random bytes, as a stock x402 client draws them. */
  nonce?: Hex;
}

/**
 * The payment an unmodified x402 client (`@x402/evm`'s exact scheme) sends for requirements
 * {asset: USDC, payTo: the escrow, amount, extra: {name: "USD Coin", version: "2"}}: an EIP-3009
 * TransferWithAuthorization in the token's domain, valid from 600 s ago for maxTimeoutSeconds, with
 * a random nonce.
 */
export async function signX402Payment(f: EscrowFixture, opts: X402PaymentOptions): Promise<TransferAuthorization> {
  const start = BigInt(await now());
  const message = {
    from: opts.from ?? opts.signer.address,
    to: opts.to ?? f.escrow.address,
    value: opts.value,
    validAfter: opts.validAfter ?? start - 600n,
    validBefore: opts.validBefore ?? start + BigInt(X402_TIMEOUT_SECONDS),
    nonce: opts.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  };
  const signature = await opts.signer.signTypedData({
    domain: usdcDomain(f),
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  const { to: _payee, ...authorization } = message;
  return { ...authorization, signature };
}

/** The listing's terms the operator settles an x402 payment with: the buyer's signature binds none of them. */
export interface X402Terms {
  seller: Address;
  deadline: number;
  disputeWindow: number;
}

/** The terms of the listing paid for in these tests: the seller, 7 days to deliver, 1 day to dispute. */
export async function defaultX402Terms(f: EscrowFixture): Promise<X402Terms> {
  return { seller: f.addr.seller, deadline: (await now()) + 7 * DAY, disputeWindow: DAY };
}

/** `by` (the operator unless said) submits `fundWithTransfer` for `authorization` with `terms`. */
export function submitX402(f: EscrowFixture, authorization: TransferAuthorization, terms: X402Terms, by?: Escrow) {
  return (by ?? f.as.operator).write.fundWithTransfer([
    terms.seller,
    terms.deadline,
    terms.disputeWindow,
    authorization,
  ]);
}

/**
 * The operator settles `authorization`: returns the escrow's id, escrowIdOf(from, nonce), and its
 * terms as emitted.
 */
export async function settleX402(f: EscrowFixture, authorization: TransferAuthorization, terms?: X402Terms) {
  const receipt = await mined(submitX402(f, authorization, terms ?? (await defaultX402Terms(f))));
  const id = escrowIdOf(authorization.from, authorization.nonce);
  return { id, terms: await termsAfter(f.escrow, id, receipt), receipt };
}
