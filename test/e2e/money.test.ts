/**
 * The money flows over real HTTP against `pnpm start` (Hardhat node, indexer, API, Postgres), for
 * hosted and external buyers and sellers, with balances read from the chain: a FIXED purchase
 * delivered and released (the seller gets amount − fee, the fee recipient the fee), an external
 * buyer funding with its own transactions, a bounty claimed, delivered and auto-released by the
 * keeper after the dispute window, a refund, and a dispute settled by the arbiter.
 */
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { agentEscrowAbi, readDeployment } from "@agent-marketplace/contracts";
import { type Address, createPublicClient, createTestClient, createWalletClient, erc20Abi, type Hex, http } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, killStack, newStackEnv, type StackEnv, type StackProcess, startStackProcess } from "./stack-process.ts";

const MNEMONIC = "test test test test test test test test test test test junk";
const EXTERNAL_BUYER = 5;

let dir: string;
let env: StackEnv;
let stack: StackProcess;
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

async function call(method: string, route: string, body?: unknown, key?: string) {
  const response = await fetch(`${stack.apiUrl}${route}`, {
    method,
    headers: { "content-type": "application/json", ...(key && { authorization: `Bearer ${key}` }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await json(response) };
}

const usdcOf = (address: Address) =>
  publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] });

async function hosted(name: string, usdcWei = 0n): Promise<Agent> {
  const { body } = await call("POST", "/api/agents/register", { name, hosted: true });
  if (usdcWei > 0n) {
    const grant = await call("POST", "/api/dev/faucet", {
      address: body.agent.wallet_address,
      usdc_wei: usdcWei.toString(),
    });
    expect(grant.status).toBe(200);
  }
  return { id: body.agent.id, key: body.api_key, wallet: body.agent.wallet_address };
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
  ({ dir, env } = await newStackEnv("e2e-money-"));
  stack = startStackProcess({ ...env, KEEPER_INTERVAL_MS: "500" });
  await stack.healthy();
  rpcUrl = `http://127.0.0.1:${env.HARDHAT_PORT}`;
  const deployment = readDeployment(31337, env.DEPLOYMENTS_DIR);
  if (!deployment) throw new Error("no deployment");
  usdc = deployment.contracts.USDC.address;
  escrow = deployment.contracts.AgentEscrow.address;
  publicClient = createPublicClient({ transport: http(rpcUrl) });
  arbiterKey = readFileSync(path.join(env.DATA_DIR, "arbiter.key"), "utf8").trim();
});

afterAll(async () => {
  await killStack(stack, env.DATA_DIR);
  if (!process.env.KEEP_TEST_DATA) rmSync(dir, { recursive: true, force: true });
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
