/**
 * The money flows over real HTTP against `pnpm start` (Hardhat node, indexer, API, Postgres), for
 * hosted and external buyers and sellers, with balances read from the chain: a FIXED purchase
 * delivered and released (the seller gets amount − fee, the fee recipient the fee), an external
 * buyer funding with its own transactions, a bounty claimed, delivered and auto-released by the
 * keeper after the dispute window, a refund, and a dispute settled by the arbiter; the 402 and an
 * external seller signing its delivery (gasless); an all-external bounty whose hunter hands in a
 * wrong, a foreign, a failed and a replayed tx_hash before its own delivery.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { agentEscrowAbi, readDeployment } from "@agent-marketplace/contracts";
import { type Address, createPublicClient, createTestClient, createWalletClient, erc20Abi, type Hex, http } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { callApi, registerHostedAgent } from "./stack-process.ts";

const MNEMONIC = "test test test test test test test test test test test junk";
const EXTERNAL_BUYER = 5;
const EXTERNAL_SELLER = 6;
const EXTERNAL_POSTER = 7;
const EXTERNAL_HUNTER = 8;

const { env, apiUrl } = inject("sharedStack");
let rpcUrl: string;
let usdc: Address;
let escrow: Address;
let publicClient: ReturnType<typeof createPublicClient>;
let arbiterKey: string;

interface Agent {
  id: string;
  key: string;
  wallet: Address;
}

const call = (method: string, route: string, body?: unknown, key?: string) => callApi(apiUrl, method, route, body, key);

const usdcOf = (address: Address) =>
  publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] });

const hosted = (name: string, usdcWei = 0n): Promise<Agent> => registerHostedAgent(apiUrl, name, usdcWei);

/** An external agent whose wallet is dev account `index` (10,000 USDC from pnpm start). */
async function external(name: string, index: number) {
  const account = mnemonicToAccount(MNEMONIC, { addressIndex: index });
  const { status, body } = await call("POST", "/api/agents/register", {
    agent_name: name,
    wallet_address: account.address,
  });
  expect(status).toBe(201);
  const wallet = createWalletClient({ account, transport: http(rpcUrl) });
  return { id: body.agent.id as string, key: body.api_key as string, wallet: account.address, account, client: wallet };
}

/** Sends each call from `client` and waits for it; the last transaction's hash. */
async function send(client: ReturnType<typeof createWalletClient>, calls: { to: Address; data: Hex }[]) {
  let hash: Hex = "0x";
  for (const step of calls) {
    hash = await client.sendTransaction({ chain: null, account: client.account ?? null, to: step.to, data: step.data });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
  }
  return hash;
}

async function listing(seller: Agent, price: bigint, type = "FIXED") {
  const { status, body } = await call(
    "POST",
    "/api/listings",
    {
      agent_id: seller.id,
      title: `${type} e2e`,
      description: "end to end",
      price_wei: price.toString(),
      listing_type: type,
    },
    seller.key,
  );
  expect(status).toBe(201);
  return body;
}

beforeAll(async () => {
  rpcUrl = `http://127.0.0.1:${env.HARDHAT_PORT}`;
  const deployment = readDeployment(31337, env.DEPLOYMENTS_DIR);
  if (!deployment) throw new Error("no deployment");
  usdc = deployment.contracts.USDC.address;
  escrow = deployment.contracts.AgentEscrow.address;
  publicClient = createPublicClient({ transport: http(rpcUrl) });
  arbiterKey = readFileSync(path.join(env.DATA_DIR, "arbiter.key"), "utf8").trim();
});

describe("money over HTTP", () => {
  it("FIXED: hosted buyer, hosted seller: buy, deliver, release; exact balances on chain", async () => {
    const seller = await hosted("seller");
    const buyer = await hosted("buyer", 20_000_000n);
    const price = 8_000_000n;
    const item = await listing(seller, price);
    const feeRecipient = await publicClient.readContract({
      address: escrow,
      abi: agentEscrowAbi,
      functionName: "feeRecipient",
    });
    const feeBps = BigInt(
      await publicClient.readContract({ address: escrow, abi: agentEscrowAbi, functionName: "feeBps" }),
    );
    const feeBefore = await usdcOf(feeRecipient);

    const bought = await call("POST", `/api/listings/${item.id}/buy`, {}, buyer.key);
    expect(bought.body).toMatchObject({ state: "FUNDED" });
    const id = bought.body.transaction_id;
    expect(
      (await call("POST", `/api/transactions/${id}/deliver`, { deliverable: "done" }, seller.key)).body.state,
    ).toBe("DELIVERED");
    const released = await call("POST", `/api/transactions/${id}/release`, {}, buyer.key);
    const fee = (price * feeBps) / 10_000n;
    expect(released.body).toMatchObject({
      state: "RELEASED",
      seller_received_wei: (price - fee).toString(),
      fee_wei: fee.toString(),
    });
    expect(await usdcOf(seller.wallet)).toBe(price - fee);
    expect(await usdcOf(feeRecipient)).toBe(feeBefore + fee);
    expect(await usdcOf(buyer.wallet)).toBe(20_000_000n - price);
    expect((await call("GET", `/api/transactions/${id}`)).body.state).toBe("RELEASED");
  });

  it("FIXED: external buyer sends approve and fund itself, completes with the tx_hash; hosted seller delivers", async () => {
    const seller = await hosted("seller");
    const account = mnemonicToAccount(MNEMONIC, { addressIndex: EXTERNAL_BUYER });
    const registered = await call("POST", "/api/agents/register", {
      agent_name: "external buyer",
      wallet_address: account.address,
    });
    const buyer = { id: registered.body.agent.id, key: registered.body.api_key };
    const price = 3_000_000n;
    const item = await listing(seller, price);
    const first = await call("POST", `/api/listings/${item.id}/buy`, {}, buyer.key);
    expect(first.status).toBe(201);
    const wallet = createWalletClient({ account, transport: http(rpcUrl) });
    let hash: Hex = "0x";
    for (const step of first.body.instructions.calls) {
      hash = await wallet.sendTransaction({ chain: null, to: step.to, data: step.data });
      await publicClient.waitForTransactionReceipt({ hash });
    }
    const before = await usdcOf(account.address);
    const second = await call("POST", `/api/listings/${item.id}/buy`, { tx_hash: hash }, buyer.key);
    expect(second.body).toMatchObject({ state: "FUNDED", transaction_id: first.body.transaction_id });
    // A replayed tx_hash is refused and moves nothing.
    expect((await call("POST", `/api/listings/${item.id}/buy`, { tx_hash: hash }, buyer.key)).status).toBe(409);
    expect(await usdcOf(account.address)).toBe(before);
    const id = first.body.transaction_id;
    expect((await call("POST", `/api/transactions/${id}/deliver`, { deliverable: "ok" }, seller.key)).status).toBe(200);
    // The external buyer releases on chain itself, then hands in the hash.
    const release = await call("POST", `/api/transactions/${id}/release`, {}, buyer.key);
    expect(release.status).toBe(202);
    const releaseHash = await wallet.sendTransaction({
      chain: null,
      to: release.body.instructions.calls[0].to,
      data: release.body.instructions.calls[0].data,
    });
    await publicClient.waitForTransactionReceipt({ hash: releaseHash });
    const done = await call("POST", `/api/transactions/${id}/release`, { tx_hash: releaseHash }, buyer.key);
    expect(done.body).toMatchObject({ state: "RELEASED" });
    expect(await usdcOf(seller.wallet)).toBe(BigInt(done.body.seller_received_wei));
  });

  it("BOUNTY: posted, claimed, delivered; the keeper auto-releases after the dispute window", async () => {
    const poster = await hosted("poster", 10_000_000n);
    const hunter = await hosted("hunter");
    const bounty = await listing(poster, 4_000_000n, "BOUNTY");
    expect(bounty.funding.state).toBe("FUNDED");
    const claimed = await call("POST", `/api/listings/${bounty.id}/claim`, {}, hunter.key);
    expect(claimed.status).toBe(200);
    const id = claimed.body.transaction_id;
    expect((await call("POST", `/api/transactions/${id}/deliver`, { deliverable: "fixed" }, hunter.key)).status).toBe(
      200,
    );
    const testClient = createTestClient({ mode: "hardhat", transport: http(rpcUrl) });
    await testClient.increaseTime({ seconds: 25 * 3600 });
    await testClient.mine({ blocks: 1 });
    let state = "";
    for (let i = 0; i < 100 && state !== "RELEASED"; i++) {
      state = (await call("GET", `/api/transactions/${id}`)).body.state;
      if (state !== "RELEASED") await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(state).toBe("RELEASED");
    expect(await usdcOf(hunter.wallet)).toBeGreaterThan(0n);
  });

  it("FIXED: 402 on a short balance; an external seller delivers gasless by signing; exact balances", async () => {
    const seller = await external("external seller", EXTERNAL_SELLER);
    const buyer = await hosted("buyer", 1_000_000n);
    const price = 6_000_000n;
    const item = await listing(seller, price);
    const short = await call("POST", `/api/listings/${item.id}/buy`, {}, buyer.key);
    expect(short.status).toBe(402);
    expect(short.body).toMatchObject({
      required_wei: price.toString(),
      balance_wei: "1000000",
      shortfall_wei: (price - 1_000_000n).toString(),
    });
    expect((await call("GET", `/api/transactions?agent_id=${buyer.id}`)).body.transactions).toEqual([]);
    await call("POST", "/api/dev/faucet", { address: buyer.wallet, usdc_wei: price.toString() });
    const bought = await call("POST", `/api/listings/${item.id}/buy`, {}, buyer.key);
    expect(bought.body.state).toBe("FUNDED");
    const id = bought.body.transaction_id;

    const sellerUsdc = await usdcOf(seller.wallet);
    const sellerEth = await publicClient.getBalance({ address: seller.wallet });
    const deliverable = "signed, not sent";
    const asked = await call("POST", `/api/transactions/${id}/deliver`, { deliverable }, seller.key);
    expect(asked.status).toBe(202);
    const typed = asked.body.instructions.typed_data;
    const signature = await seller.account.signTypedData({
      ...typed,
      message: { ...typed.message, nonce: BigInt(typed.message.nonce), sigDeadline: BigInt(typed.message.sigDeadline) },
    });
    const signed = { signature, nonce: typed.message.nonce, sig_deadline: typed.message.sigDeadline };
    const delivered = await call("POST", `/api/transactions/${id}/deliver`, { deliverable, signed }, seller.key);
    expect(delivered.body).toMatchObject({ state: "DELIVERED" });
    // The same signature again is refused: the escrow has moved on.
    expect((await call("POST", `/api/transactions/${id}/deliver`, { deliverable, signed }, seller.key)).status).toBe(
      409,
    );
    const released = await call("POST", `/api/transactions/${id}/release`, {}, buyer.key);
    expect(released.body.state).toBe("RELEASED");
    expect(await usdcOf(seller.wallet)).toBe(sellerUsdc + BigInt(released.body.seller_received_wei));
    expect(await usdcOf(buyer.wallet)).toBe(1_000_000n);
    expect(await publicClient.getBalance({ address: seller.wallet })).toBe(sellerEth);
  });

  it("BOUNTY, all external: funded and confirmed by the poster; claimed; delivered by the hunter's own transaction after a wrong, foreign, failed and replayed tx_hash; auto-released", async () => {
    const poster = await external("external poster", EXTERNAL_POSTER);
    const hunter = await external("external hunter", EXTERNAL_HUNTER);
    const reward = 3_000_000n;
    const bounty = await listing(poster, reward, "BOUNTY");
    expect(bounty).toMatchObject({ is_active: false, funding: { state: "PENDING" } });
    expect((await call("POST", `/api/listings/${bounty.id}/claim`, {}, hunter.key)).status).toBe(409);
    const funded = await send(poster.client, bounty.funding.instructions.calls);
    const txId = bounty.funding.transaction_id;
    const confirmed = await call("POST", `/api/transactions/${txId}/confirm`, { tx_hash: funded }, poster.key);
    expect(confirmed.body).toMatchObject({ state: "FUNDED" });
    expect((await call("GET", `/api/listings/${bounty.id}`)).body.is_active).toBe(true);
    expect((await call("POST", `/api/listings/${bounty.id}/claim`, {}, hunter.key)).status).toBe(200);

    const deliverable = "patched and tested";
    const asked = await call("POST", `/api/transactions/${txId}/deliver`, { deliverable }, hunter.key);
    expect(asked.status).toBe(202);
    const deliverCall = asked.body.instructions.calls[0];
    const deliver = (txHash: string) =>
      call("POST", `/api/transactions/${txId}/deliver`, { deliverable, tx_hash: txHash }, hunter.key);
    const state = async () => (await call("GET", `/api/transactions/${txId}`)).body.state;

    // Wrong: no such transaction. Foreign: the poster's funding, not a delivery.
    expect((await deliver(`0x${"ab".repeat(32)}`)).status).toBe(400);
    expect((await deliver(funded)).status).toBe(400);
    // Failed: the deliver call with too little gas, mined by hand (the node refuses reverts when it mines on send).
    const testClient = createTestClient({ mode: "hardhat", transport: http(rpcUrl) });
    await testClient.setAutomine(false);
    let failed: Hex;
    try {
      failed = await hunter.client.sendTransaction({
        chain: null,
        account: hunter.account,
        to: deliverCall.to,
        data: deliverCall.data,
        gas: 30_000n,
      });
      await testClient.mine({ blocks: 1 });
    } finally {
      await testClient.setAutomine(true);
    }
    expect((await publicClient.waitForTransactionReceipt({ hash: failed })).status).toBe("reverted");
    expect((await deliver(failed)).status).toBe(400);
    expect(await state()).toBe("FUNDED");

    const sent = await send(hunter.client, [deliverCall]);
    expect((await deliver(sent)).body).toMatchObject({ state: "DELIVERED" });
    // Replayed: accepted once, ever.
    expect((await deliver(sent)).status).toBe(409);
    expect(await state()).toBe("DELIVERED");

    const hunterBefore = await usdcOf(hunter.wallet);
    await testClient.increaseTime({ seconds: 25 * 3600 });
    await testClient.mine({ blocks: 1 });
    let settled = "";
    for (let i = 0; i < 100 && settled !== "RELEASED"; i++) {
      settled = await state();
      if (settled !== "RELEASED") await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(settled).toBe("RELEASED");
    const feeBps = BigInt(
      await publicClient.readContract({ address: escrow, abi: agentEscrowAbi, functionName: "feeBps" }),
    );
    expect(await usdcOf(hunter.wallet)).toBe(hunterBefore + reward - (reward * feeBps) / 10_000n);
  });

  it("refund before delivery, and a dispute split by the arbiter", async () => {
    const seller = await hosted("seller");
    const buyer = await hosted("buyer", 20_000_000n);
    const item = await listing(seller, 5_000_000n);
    const refunded = (await call("POST", `/api/listings/${item.id}/buy`, {}, buyer.key)).body.transaction_id;
    expect((await call("POST", `/api/transactions/${refunded}/refund`, {}, buyer.key)).body.state).toBe("REFUNDED");
    expect(await usdcOf(buyer.wallet)).toBe(20_000_000n);

    const id = (await call("POST", `/api/listings/${item.id}/buy`, {}, buyer.key)).body.transaction_id;
    await call("POST", `/api/transactions/${id}/deliver`, { deliverable: "half" }, seller.key);
    expect((await call("POST", `/api/transactions/${id}/dispute`, { reason: "half" }, buyer.key)).body.state).toBe(
      "DISPUTED",
    );
    expect((await call("POST", `/api/transactions/${id}/evidence`, { content: "see page 2" }, buyer.key)).status).toBe(
      201,
    );
    const ruling = await call("POST", `/api/transactions/${id}/resolve`, { seller_bps: 5_000 }, arbiterKey);
    expect(ruling.status).toBe(200);
    expect(ruling.body.state).toBe("RELEASED");
    const { seller_received_wei, buyer_refunded_wei, fee_wei } = ruling.body.resolution;
    expect(BigInt(seller_received_wei) + BigInt(buyer_refunded_wei) + BigInt(fee_wei)).toBe(5_000_000n);
    expect(await usdcOf(buyer.wallet)).toBe(15_000_000n + BigInt(buyer_refunded_wei));
    expect(await usdcOf(seller.wallet)).toBe(BigInt(seller_received_wei));
  });
});
