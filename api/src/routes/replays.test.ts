import { mockUsdcAbi } from "@agent-marketplace/contracts";
import { sql } from "drizzle-orm";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hex,
  http,
  keccak256,
  parseEther,
  toBytes,
} from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { hardhat } from "viem/chains";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { USDC } from "../../test/escrow.ts";
import {
  createListing,
  get,
  json,
  newWallet,
  post,
  registerAgent,
  registerWithWallet,
  signIn,
  type TestApp,
  testApp,
  usdcBalance,
} from "../../test/harness.ts";

/*
 * Every kind of proof the API accepts, handed in a second time: the same EIP-3009 authorization,
 * funding tx_hash and EIP-712 move signature, on their own transaction and on another one of the
 * same parties; the key-rotation signature; a SIWE login. Each second submission is refused and
 * changes nothing: states, balances, rows. The buyer's signed release, refund and dispute too. (Same-transaction replays of a buy's, a confirm's and a
 * deliver's tx_hash and of a deliver's signature have their tests in purchases, transaction-funding
 * and transaction-moves.) Fresh wallets the node gives ETH; no dev account sends.
 */

const stack = inject("stack");
const AMOUNT = 2_000_000n;
let t: TestApp;
let buyerAccount: PrivateKeyAccount;
let buyer: { id: string; key: string };
let sellerAccount: PrivateKeyAccount;
let seller: { id: string; key: string };
const publicClient = createPublicClient({ chain: hardhat, transport: http(stack.rpcUrl) });
const walletOf = (account: PrivateKeyAccount) =>
  createWalletClient({ account, chain: { ...hardhat, id: stack.deployment.chainId }, transport: http(stack.rpcUrl) });

beforeAll(async () => {
  t = await testApp();
  buyerAccount = newWallet();
  sellerAccount = newWallet();
  const testClient = createTestClient({ chain: hardhat, mode: "hardhat", transport: http(stack.rpcUrl) });
  await testClient.setBalance({ address: buyerAccount.address, value: parseEther("1") });
  const hash = await walletOf(buyerAccount).writeContract({
    address: stack.deployment.contracts.USDC.address,
    abi: mockUsdcAbi,
    functionName: "mint",
    args: [buyerAccount.address, 100n * USDC],
  });
  await publicClient.waitForTransactionReceipt({ hash });
  buyer = await registerWithWallet(t.app, "replay buyer", buyerAccount.address);
  seller = await registerWithWallet(t.app, "replay seller", sellerAccount.address);
});
afterAll(() => t.close());

const stateOf = async (id: string) => (await json(await get(t.app, `/api/transactions/${id}`))).state;

/** A fingerprint of the rows a proof could change. */
async function snapshot(): Promise<string> {
  const { rows } = await t.db.execute<{ digest: string }>(
    sql.raw(`SELECT concat_ws('|',
      (SELECT md5(string_agg(x::text, ',' ORDER BY x.id)) FROM app.transactions x),
      (SELECT md5(string_agg(h::text, ',' ORDER BY h::text)) FROM app.accepted_tx_hashes h),
      (SELECT md5(string_agg(d::text, ',' ORDER BY d::text)) FROM app.deliverables d),
      -- last_used_at is bookkeeping, written as keys are used
      (SELECT md5(string_agg((k.id, k.agent_id, k.key_hash, k.revoked_at)::text, ',' ORDER BY k.key_hash)) FROM app.api_keys k),
      (SELECT md5(string_agg(s::text, ',' ORDER BY s::text)) FROM app.user_sessions s)) AS digest`),
  );
  return rows[0]?.digest ?? "";
}

/** Everything a refused replay must leave as it was: rows and both parties' USDC. */
async function world() {
  return {
    rows: await snapshot(),
    buyerUsdc: await usdcBalance(buyerAccount.address),
    sellerUsdc: await usdcBalance(sellerAccount.address),
  };
}

async function expectRefusedAndNothingChanged(submit: () => Response | Promise<Response>, statuses: number[]) {
  const before = await world();
  const response = await submit();
  expect(statuses).toContain(response.status);
  expect(await json(response)).toMatchObject({ error: expect.any(String), code: expect.any(String) });
  expect(await world()).toEqual(before);
}

/** A PENDING direct transaction of the buyer and the seller, with its funding instructions. */
async function pending(): Promise<{
  transaction_id: string;
  instructions: { calls: { to: Address; data: Hex }[]; gasless: { typed_data: ReturnType<typeof JSON.parse> } };
}> {
  const response = await post(
    t.app,
    "/api/transactions",
    { buyer_agent_id: buyer.id, seller_agent_id: seller.id, amount_wei: AMOUNT.toString() },
    buyer.key,
  );
  expect(response.status).toBe(201);
  const body = await json(response);
  expect(body.state).toBe("PENDING");
  return body;
}

/** The buyer's EIP-3009 authorization of a pending transaction's funding. */
async function authorizationOf(created: Awaited<ReturnType<typeof pending>>) {
  const typed = created.instructions.gasless.typed_data;
  const signature = await buyerAccount.signTypedData({
    ...typed,
    message: {
      ...typed.message,
      value: BigInt(typed.message.value),
      validAfter: BigInt(typed.message.validAfter),
      validBefore: BigInt(typed.message.validBefore),
    },
  });
  return { signature, valid_after: "0", valid_before: typed.message.validBefore as string };
}

const confirm = (id: string, body: unknown) => post(t.app, `/api/transactions/${id}/confirm`, body, buyer.key);
const move = (id: string, name: string, body: unknown, key: string) =>
  post(t.app, `/api/transactions/${id}/${name}`, body, key);

async function fundedGasless() {
  const created = await pending();
  const authorization = await authorizationOf(created);
  expect((await confirm(created.transaction_id, { authorization })).status).toBe(200);
  return { id: created.transaction_id, authorization };
}

describe("replays of funding proofs", () => {
  it("an EIP-3009 authorization, again on its transaction and on another pending one", async () => {
    const { id, authorization } = await fundedGasless();
    await expectRefusedAndNothingChanged(() => confirm(id, { authorization }), [409]);
    const other = await pending();
    await expectRefusedAndNothingChanged(() => confirm(other.transaction_id, { authorization }), [400, 409]);
    expect(await stateOf(other.transaction_id)).toBe("PENDING");
  });

  it("a funding tx_hash, again on its transaction and on another pending one", async () => {
    const created = await pending();
    let hash: Hex = "0x";
    for (const call of created.instructions.calls) {
      hash = await walletOf(buyerAccount).sendTransaction({ to: call.to, data: call.data });
      await publicClient.waitForTransactionReceipt({ hash });
    }
    expect((await confirm(created.transaction_id, { tx_hash: hash })).status).toBe(200);
    await expectRefusedAndNothingChanged(() => confirm(created.transaction_id, { tx_hash: hash }), [409]);
    const other = await pending();
    await expectRefusedAndNothingChanged(() => confirm(other.transaction_id, { tx_hash: hash }), [400, 409]);
    expect(await stateOf(other.transaction_id)).toBe("PENDING");
  });
});

describe("replays of a buy's tx_hash", () => {
  it("the funding hash of one listing's buy, handed in for another listing of the same seller", async () => {
    const listing = await createListing(t.app, seller, { price_wei: AMOUNT.toString() });
    const another = await createListing(t.app, seller, { price_wei: AMOUNT.toString() });
    const started = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
    expect(started.state).toBe("PENDING");
    let hash: Hex = "0x";
    for (const call of started.instructions.calls) {
      hash = await walletOf(buyerAccount).sendTransaction({ to: call.to, data: call.data });
      await publicClient.waitForTransactionReceipt({ hash });
    }
    expect((await post(t.app, `/api/listings/${listing.id}/buy`, { tx_hash: hash }, buyer.key)).status).toBe(200);
    const otherPending = await json(await post(t.app, `/api/listings/${another.id}/buy`, {}, buyer.key));
    expect(otherPending.state).toBe("PENDING");
    await expectRefusedAndNothingChanged(
      () => post(t.app, `/api/listings/${another.id}/buy`, { tx_hash: hash }, buyer.key),
      [400, 409],
    );
    expect(await stateOf(otherPending.transaction_id)).toBe("PENDING");
    await expectRefusedAndNothingChanged(() => confirm(otherPending.transaction_id, { tx_hash: hash }), [400, 409]);
  });
});

describe("replays of EIP-712 move signatures", () => {
  it("the seller's signed deliver, again on its transaction and on another funded one", async () => {
    const first = await fundedGasless();
    const second = await fundedGasless();
    const deliverable = "signed once";
    const asked = await json(await move(first.id, "deliver", { deliverable }, seller.key));
    const typed = asked.instructions.typed_data;
    const signature = await sellerAccount.signTypedData({
      ...typed,
      message: { ...typed.message, nonce: BigInt(typed.message.nonce), sigDeadline: BigInt(typed.message.sigDeadline) },
    });
    const signed = { signature, nonce: typed.message.nonce, sig_deadline: typed.message.sigDeadline };
    const done = await move(first.id, "deliver", { deliverable, signed }, seller.key);
    expect(done.status).toBe(200);
    expect(await json(done)).toMatchObject({ deliverable_hash: keccak256(toBytes(deliverable)) });
    await expectRefusedAndNothingChanged(() => move(first.id, "deliver", { deliverable, signed }, seller.key), [409]);
    await expectRefusedAndNothingChanged(
      () => move(second.id, "deliver", { deliverable, signed }, seller.key),
      [400, 409],
    );
    expect(await stateOf(second.id)).toBe("FUNDED");
  });
});

/** An external party's signature of a move's typed data, as the API asks for it (202). */
async function signMove(
  id: string,
  name: string,
  body: Record<string, unknown>,
  account: PrivateKeyAccount,
  key: string,
) {
  const asked = await move(id, name, body, key);
  expect(asked.status).toBe(202);
  const typed = (await json(asked)).instructions.typed_data;
  const fields: { name: string; type: string }[] = typed.types[typed.primaryType];
  const message = Object.fromEntries(
    Object.entries(typed.message).map(([field, value]) => [
      field,
      /^u?int/.test(fields.find((f) => f.name === field)?.type ?? "") ? BigInt(value as string) : value,
    ]),
  );
  const signature = await account.signTypedData({ ...typed, message });
  return { signature, nonce: typed.message.nonce as string, sig_deadline: typed.message.sigDeadline as string };
}

/** A funded transaction the seller has delivered with its signature. */
async function delivered() {
  const { id } = await fundedGasless();
  const signed = await signMove(id, "deliver", { deliverable: "work" }, sellerAccount, seller.key);
  expect((await move(id, "deliver", { deliverable: "work", signed }, seller.key)).status).toBe(200);
  return id;
}

describe("replays of the buyer's signed release, refund and dispute", () => {
  const cases: [string, Record<string, unknown>, () => Promise<string>, string][] = [
    ["refund", {}, async () => (await fundedGasless()).id, "FUNDED"],
    ["release", {}, delivered, "DELIVERED"],
    ["dispute", { reason: "not what was asked" }, delivered, "DELIVERED"],
  ];
  for (const [name, body, prepare, untouched] of cases) {
    it(`${name}: again on its transaction (409) and on another of the same parties (refused)`, async () => {
      const id = await prepare();
      const other = await prepare();
      const signed = await signMove(id, name, body, buyerAccount, buyer.key);
      expect((await move(id, name, { ...body, signed }, buyer.key)).status).toBe(200);
      await expectRefusedAndNothingChanged(() => move(id, name, { ...body, signed }, buyer.key), [409]);
      await expectRefusedAndNothingChanged(() => move(other, name, { ...body, signed }, buyer.key), [400, 409]);
      expect(await stateOf(other)).toBe(untouched);
    });
  }
});

describe("replays of sign-in proofs", () => {
  it("the key-rotation wallet signature: 401, the new key stands and no key is added or revoked", async () => {
    const agent = await registerAgent(t.app, "rotating");
    const challenge = await json(await get(t.app, `/api/agents/key-challenge?address=${agent.wallet.address}`));
    const signature = await agent.wallet.signMessage({ message: challenge.message });
    const body = { address: agent.wallet.address, nonce: challenge.nonce, signature };
    const rotated = await post(t.app, "/api/agents/rotate-key", body);
    expect(rotated.status).toBe(200);
    const { api_key } = await json(rotated);
    await expectRefusedAndNothingChanged(() => post(t.app, "/api/agents/rotate-key", body), [401]);
    expect((await get(t.app, "/api/agents/me", api_key)).status).toBe(200);
  });

  it("a SIWE login: 401, no second session", async () => {
    const body = await signIn(t.app, newWallet(), t.config.chainId);
    const login = await post(t.app, "/api/auth/login", body);
    expect(login.status).toBe(200);
    const { session_token } = await json(login);
    await expectRefusedAndNothingChanged(() => post(t.app, "/api/auth/login", body), [400, 401]);
    const session = await t.app.request("/api/auth/session", { headers: { authorization: `Bearer ${session_token}` } });
    expect(session.status).toBe(200);
  });
});
