/**
 * x402 over real HTTP against `pnpm start`: an unmodified @x402/fetch client (wrapFetchWithPayment,
 * x402Client, @x402/evm's ExactEvmScheme over a viem account, the spend control that allows this
 * chain's USDC) buys a FIXED listing in one call; the seller delivers; the buyer disputes by its
 * receipt token; the arbiter splits 70/30; balances on chain. A second client re-sends the payment
 * after the first timed out while the chain held the settlement: one escrow. A payment submitted to
 * the token directly first: one escrow, counted once. Payers are fresh keys with faucet USDC and no
 * ETH; the front-runner is a fresh key given ETH. The gas of the x402 lifecycle is read from the
 * receipts, and the README's x402 example runs as written. A stack of its own (`pnpm start`).
 */
import { execFile } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { agentEscrowAbi, mockUsdcAbi, readDeployment } from "@agent-marketplace/contracts";
import { createMarketplaceClient, wrapFetchWithHostedPayment } from "@agent-marketplace/sdk";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  parseEther,
} from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callApi,
  killStack,
  newStackEnv,
  nodeBinary,
  registerHostedAgent,
  repoRoot,
  type StackEnv,
  type StackProcess,
  startStackProcess,
} from "./stack-process.ts";

const PRICE = 4_000_000n;
let rpcUrl: string;
let usdc: Address;
let escrow: Address;
let network: `eip155:${number}`;
let publicClient: ReturnType<typeof createPublicClient>;
let testClient: ReturnType<typeof createTestClient>;
let arbiterKey: string;

const call = (method: string, route: string, body?: unknown, key?: string) => callApi(apiUrl, method, route, body, key);
const usdcOf = (address: Address) =>
  publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] });

/** A fresh payer with faucet USDC and no ETH. */
async function payer(usdcWei: bigint): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  const grant = await call("POST", "/api/dev/faucet", { address: account.address, usdc_wei: usdcWei.toString() });
  expect(grant.status).toBe(200);
  return account;
}

/** The stock client, as a buyer sets it up: the only setting allows this chain's USDC. */
function stockClient(account: PrivateKeyAccount): x402Client {
  return new x402Client()
    .register(network, new ExactEvmScheme(account))
    .setSpendControls({ allowedAssets: [{ network, asset: usdc }] });
}

async function fixedListing(seller: { id: string; key: string }) {
  const created = await call(
    "POST",
    "/api/listings",
    { agent_id: seller.id, title: "x402 e2e", description: "paid over HTTP 402", price_wei: PRICE.toString() },
    seller.key,
  );
  expect(created.status).toBe(201);
  return created.body as { id: string; x402: { endpoint: string } };
}

let dir: string;
let env: StackEnv;
let stack: StackProcess;
let apiUrl: string;

beforeAll(async () => {
  // A stack of its own: the shared one's clock is moved ahead by other files, and a stock client
  // signs its authorization's validity from the wall clock (as the README's example, run below).
  ({ dir, env } = await newStackEnv("e2e-x402-"));
  stack = startStackProcess({ ...env, REGISTRATIONS_PER_HOUR: "10000" });
  await stack.healthy();
  apiUrl = stack.apiUrl;
  rpcUrl = `http://127.0.0.1:${env.HARDHAT_PORT}`;
  const deployment = readDeployment(31337, env.DEPLOYMENTS_DIR);
  if (!deployment) throw new Error("no deployment");
  usdc = deployment.contracts.USDC.address;
  escrow = deployment.contracts.AgentEscrow.address;
  network = `eip155:${deployment.chainId}`;
  publicClient = createPublicClient({ transport: http(rpcUrl) });
  testClient = createTestClient({ mode: "hardhat", transport: http(rpcUrl) });
  arbiterKey = readFileSync(path.join(env.DATA_DIR, "arbiter.key"), "utf8").trim();
});
afterAll(async () => {
  await killStack(stack, env.DATA_DIR);
  if (!process.env.KEEP_TEST_DATA) rmSync(dir, { recursive: true, force: true });
});

describe("x402 over HTTP", () => {
  it("the README's x402 example is sdk/examples/x402-purchase.ts, and it runs as written", async () => {
    const source = readFileSync(path.join(repoRoot, "sdk", "examples", "x402-purchase.ts"), "utf8");
    expect(readFileSync(path.join(repoRoot, "README.md"), "utf8")).toContain(source.trimEnd());
    const seller = await registerHostedAgent(apiUrl, "x402 example seller");
    const item = await fixedListing(seller);
    const key = generatePrivateKey();
    const buyer = privateKeyToAccount(key);
    expect((await call("POST", "/api/dev/faucet", { address: buyer.address, usdc_wei: "10000000" })).status).toBe(200);
    const { stdout } = await promisify(execFile)(
      nodeBinary(),
      [path.join(repoRoot, "sdk", "examples", "x402-purchase.ts")],
      {
        cwd: repoRoot,
        env: { ...process.env, MARKETPLACE_API_URL: apiUrl, LISTING_ID: item.id, WALLET_PRIVATE_KEY: key },
      },
    );
    expect(stdout).toMatch(/^201 FUNDED [0-9a-f-]{36} FUNDED$/m);
    expect(await usdcOf(buyer.address)).toBe(10_000_000n - PRICE);
  });

  it("an unmodified @x402/fetch client buys in one call; delivered, disputed by the receipt, ruled 70/30; balances on chain", async () => {
    const seller = await registerHostedAgent(apiUrl, "x402 e2e seller");
    const item = await fixedListing(seller);
    const buyer = await payer(10_000_000n);
    const pay = wrapFetchWithPayment(fetch, stockClient(buyer));

    const started = performance.now();
    const response = await pay(`${apiUrl}${item.x402.endpoint}`, { method: "POST" });
    const purchaseMs = performance.now() - started;
    const bought = await response.json();
    expect(response.status).toBe(201);
    expect(bought).toMatchObject({
      state: "FUNDED",
      payer: buyer.address,
      receipt_token: expect.stringMatching(/^rcpt_/),
    });
    expect(decodePaymentResponseHeader(response.headers.get("payment-response") ?? "")).toMatchObject({
      success: true,
      transaction: bought.tx_hash,
      network,
    });
    const id = bought.transaction_id as string;
    const receipt = { authorization: `Bearer ${bought.receipt_token}`, "content-type": "application/json" };

    const delivered = await call("POST", `/api/transactions/${id}/deliver`, { deliverable: "the work" }, seller.key);
    expect(delivered.body.state).toBe("DELIVERED");
    const disputed = await fetch(`${apiUrl}/api/transactions/${id}/dispute`, {
      method: "POST",
      headers: receipt,
      body: JSON.stringify({ reason: "Not what was listed" }),
    });
    expect(disputed.status).toBe(200);
    const disputeBody = await disputed.json();
    expect(disputeBody.state).toBe("DISPUTED");

    const sellerBefore = await usdcOf(seller.wallet);
    const ruled = await call(
      "POST",
      `/api/transactions/${id}/resolve`,
      { seller_bps: 7_000, note: "70/30" },
      arbiterKey,
    );
    expect(ruled.status).toBe(200);
    const feeBps = BigInt(
      await publicClient.readContract({ address: escrow, abi: agentEscrowAbi, functionName: "feeBps" }),
    );
    const sellerShare = (PRICE * 7_000n) / 10_000n;
    const fee = (sellerShare * feeBps) / 10_000n;
    expect(await usdcOf(seller.wallet)).toBe(sellerBefore + sellerShare - fee);
    expect(await usdcOf(buyer.address)).toBe(10_000_000n - sellerShare);
    expect(await publicClient.getBalance({ address: buyer.address })).toBe(0n);

    // The figures of the note: the settlement, the delivery and the operator's dispute, as the stack sent them.
    const gas = async (hash: Hex) => (await publicClient.getTransactionReceipt({ hash })).gasUsed;
    const figures = {
      purchase_ms: Math.round(purchaseMs),
      gas_fund_with_transfer: await gas(bought.tx_hash),
      gas_deliver_with_sig: await gas(delivered.body.tx_hash),
      gas_operator_dispute: await gas(disputeBody.tx_hash),
      gas_resolve: await gas(ruled.body.tx_hash),
    };
    console.info(
      "x402 lifecycle over HTTP:",
      JSON.stringify(figures, (_, value) => (typeof value === "bigint" ? Number(value) : value)),
    );
  });

  it("a hosted agent pays with the SDK's wrapFetchWithHostedPayment: the marketplace signs from its wallet, one call buys", async () => {
    const seller = await registerHostedAgent(apiUrl, "x402 hosted seller");
    const item = await fixedListing(seller);
    const buyer = await registerHostedAgent(apiUrl, "x402 hosted buyer", PRICE);
    const client = createMarketplaceClient({ baseUrl: apiUrl, apiKey: buyer.key });
    const pay = wrapFetchWithHostedPayment(fetch, client);
    const answer = await pay(`${apiUrl}${item.x402.endpoint}`, { method: "POST" });
    expect(answer.status, await answer.clone().text()).toBe(201);
    const purchase = (await answer.json()) as { buyer_agent_id: string; state: string; transaction_id: string };
    expect(purchase).toMatchObject({ buyer_agent_id: buyer.id, state: "FUNDED" });
    expect(await usdcOf(buyer.wallet)).toBe(0n);
    // Nothing left to pay with: the signing is refused, and nothing is sent.
    await expect(pay(`${apiUrl}${item.x402.endpoint}`, { method: "POST" })).rejects.toMatchObject({
      status: 402,
      code: "insufficient_balance",
    });
    // The agent acts on it with its own key, as the buyer.
    expect((await client.getTransaction({ id: purchase.transaction_id })).state).toBe("FUNDED");
  });

  it("a second client re-sends the payment after the first timed out: one escrow, and a receipt token", async () => {
    const seller = await registerHostedAgent(apiUrl, "x402 e2e timeout seller");
    const item = await fixedListing(seller);
    const buyer = await payer(10_000_000n);
    const url = `${apiUrl}${item.x402.endpoint}`;
    let header = "";
    // The first client gives up on its paid request after a second (the chain holds the settlement).
    const impatient: typeof fetch = (input, init) => {
      const request = new Request(input, init);
      const paid = request.headers.get("payment-signature");
      if (!paid) return fetch(request);
      header = paid;
      return fetch(request, { signal: AbortSignal.timeout(1_000) });
    };
    await testClient.setAutomine(false);
    try {
      await expect(wrapFetchWithPayment(impatient, stockClient(buyer))(url, { method: "POST" })).rejects.toThrow();
      expect(header).not.toBe("");
      const retry = fetch(url, { method: "POST", headers: { "PAYMENT-SIGNATURE": header } });
      await new Promise((resolve) => setTimeout(resolve, 500));
      await testClient.mine({ blocks: 1 });
      const answer = await retry;
      expect(answer.status).toBe(201);
      const body = await answer.json();
      expect(body).toMatchObject({ state: "FUNDED", receipt_token: expect.stringMatching(/^rcpt_/) });
      const again = await fetch(url, { method: "POST", headers: { "PAYMENT-SIGNATURE": header } });
      expect(again.status).toBe(200);
      expect((await again.json()).transaction_id).toBe(body.transaction_id);
      expect(await usdcOf(buyer.address)).toBe(10_000_000n - PRICE);
      const read = await fetch(`${apiUrl}/api/transactions/${body.transaction_id}`, {
        headers: { authorization: `Bearer ${body.receipt_token}` },
      });
      expect(read.status).toBe(200);

      // Delivered, then released early by the receipt: the x402 lifecycle's gas, as the stack sent it.
      await testClient.setAutomine(true);
      const delivered = await call(
        "POST",
        `/api/transactions/${body.transaction_id}/deliver`,
        { deliverable: "done" },
        seller.key,
      );
      expect(delivered.body.state).toBe("DELIVERED");
      const released = await fetch(`${apiUrl}/api/transactions/${body.transaction_id}/release`, {
        method: "POST",
        headers: { authorization: `Bearer ${body.receipt_token}`, "content-type": "application/json" },
        body: "{}",
      });
      expect(released.status).toBe(200);
      const releaseHash = (await released.json()).tx_hash as Hex;
      const gas = async (hash: Hex) => Number((await publicClient.getTransactionReceipt({ hash })).gasUsed);
      const lifecycle = {
        fund_with_transfer: await gas(body.tx_hash),
        deliver_with_sig: await gas(delivered.body.tx_hash),
        operator_release: await gas(releaseHash),
      };
      console.info(
        "x402 lifecycle gas:",
        JSON.stringify({ ...lifecycle, total: Object.values(lifecycle).reduce((a, b) => a + b, 0) }),
      );
    } finally {
      await testClient.setAutomine(true);
    }
  });

  it("a payment submitted to the token directly first is recorded once for its buyer and listing", async () => {
    const seller = await registerHostedAgent(apiUrl, "x402 e2e front-run seller");
    const item = await fixedListing(seller);
    const buyer = await payer(10_000_000n);
    const url = `${apiUrl}${item.x402.endpoint}`;
    const required = decodePaymentRequiredHeader((await fetch(url)).headers.get("payment-required") ?? "");
    const payment: PaymentPayload = await stockClient(buyer).createPaymentPayload(required);
    const { authorization, signature } = payment.payload as {
      authorization: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex };
      signature: Hex;
    };
    const frontRunner = privateKeyToAccount(generatePrivateKey());
    await testClient.setBalance({ address: frontRunner.address, value: parseEther("1") });
    const escrowBefore = await usdcOf(escrow);
    const hash = await createWalletClient({ account: frontRunner, transport: http(rpcUrl) }).writeContract({
      chain: null,
      address: usdc,
      abi: mockUsdcAbi,
      functionName: "transferWithAuthorization",
      args: [
        authorization.from,
        authorization.to,
        BigInt(authorization.value),
        BigInt(authorization.validAfter),
        BigInt(authorization.validBefore),
        authorization.nonce,
        signature,
      ],
    });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");

    const answer = await fetch(url, {
      method: "POST",
      headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payment) },
    });
    expect(answer.status).toBe(201);
    const body = await answer.json();
    expect(body).toMatchObject({ state: "FUNDED", listing_id: item.id, payer: buyer.address });
    expect(body.receipt_token).toBeUndefined();
    expect(await usdcOf(escrow)).toBe(escrowBefore + PRICE);
    expect(await usdcOf(buyer.address)).toBe(10_000_000n - PRICE);
    const transaction = await call("GET", `/api/transactions/${body.transaction_id}`);
    expect(transaction.body).toMatchObject({ state: "FUNDED", listing_id: item.id, seller: { id: seller.id } });
  });
});
