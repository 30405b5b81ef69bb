import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import { agentEscrowAbi, escrowIdOfTransaction } from "@agent-marketplace/contracts";
import { freePort } from "@agent-marketplace/indexer/local-postgres";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import { eq } from "drizzle-orm";
import { type Address, createPublicClient, erc20Abi, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase, type Database } from "../src/db/client.ts";
import { relayedTransactions } from "../src/db/schema.ts";
import { testMarket } from "./escrow.ts";
import { clockAtChain } from "./x402.ts";

/*
 * The API process dies after the relayer recorded a funding and before it answered: once right
 * before the broadcast reaches the chain, once right after. A restarted API finishes the record
 * from its outbox: the escrow is funded exactly once, the buyer pays once, and a retry under the
 * same Idempotency-Key runs nothing. The same for an x402 payment's settlement: presented again
 * after the restart, it answers the escrow the restart settled. The only fault injected is in the network: an RPC proxy
 * between the API and the node that fails or holds eth_sendRawTransaction.
 */

const stack = inject("stack");
const apiDir = fileURLToPath(new URL("..", import.meta.url));
const masterKey = randomBytes(32).toString("hex");
const publicClient = createPublicClient({ transport: http(stack.rpcUrl) });
let db: Database;

type Fault = "none" | "drop" | "hold";

/** A JSON-RPC proxy to the node that can fail or hold the broadcast of raw transactions. */
async function rpcProxy() {
  let fault: Fault = "none";
  let sawBroadcast: () => void = () => {};
  let broadcast = new Promise<void>((resolve) => {
    sawBroadcast = resolve;
  });
  const held: IncomingMessage[] = [];
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    if (fault !== "none" && body.includes("eth_sendRawTransaction")) {
      sawBroadcast();
      if (fault === "drop") {
        const { id } = JSON.parse(body) as { id: number };
        response.setHeader("content-type", "application/json");
        response.end(
          JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message: "injected: node unreachable" } }),
        );
        return;
      }
      // hold: the node gets it, the API never hears back.
      await fetch(stack.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
      held.push(request);
      return;
    }
    const forwarded = await fetch(stack.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    response.setHeader("content-type", "application/json");
    response.end(await forwarded.text());
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    set(next: Fault) {
      fault = next;
      broadcast = new Promise<void>((resolve) => {
        sawBroadcast = resolve;
      });
    },
    broadcast: () => broadcast,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Api {
  url: string;
  process: ChildProcess;
}

async function startApi(rpcUrl: string): Promise<Api> {
  const port = await freePort();
  const child = spawn(process.execPath, ["src/main.ts"], {
    cwd: apiDir,
    env: {
      ...process.env,
      DATABASE_URL: stack.databaseUrl,
      RPC_URL: rpcUrl,
      CHAIN_ID: String(stack.deployment.chainId),
      DEPLOYMENTS_DIR: stack.deploymentsDir,
      MASTER_KEY: masterKey,
      PORT: String(port),
      LOG_LEVEL: "silent",
      KEEPER_INTERVAL_MS: "0",
      REGISTRATIONS_PER_HOUR: "1000",
      // A case may name its client's address (X-Forwarded-For): the processes killed before it took
      // leases of this machine's request budget with them, for the rest of the minute.
      TRUST_PROXY: "true",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(`${url}/api/health`).then(
      (response) => response.status < 500,
      () => false,
    );
    if (ok) return { url, process: child };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the API did not start");
}

function kill(api: Api): Promise<void> {
  return new Promise((resolve) => {
    api.process.once("exit", () => resolve());
    api.process.kill("SIGKILL");
  });
}

/** The fields of the answers this test reads. */
interface Answer {
  agent: { id: string; wallet_address: string };
  api_key: string;
  id: string;
  state: string;
  transactions: unknown[];
}

async function call(api: Api, method: string, path: string, body?: unknown, key?: string, headers = {}) {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { "content-type": "application/json", ...(key && { authorization: `Bearer ${key}` }), ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

const usdcOf = (address: Address) =>
  publicClient.readContract({
    address: stack.deployment.contracts.USDC.address,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [address],
  });

beforeAll(() => {
  db = createDatabase(stack.databaseUrl, { max: 2 });
});
afterAll(() => db.$client.end());

describe.each(["drop", "hold"] as const)("the API dies during a hosted buy (broadcast %s)", (fault) => {
  it("a restart funds the escrow exactly once and the buyer pays once", async () => {
    const proxy = await rpcProxy();
    let api = await startApi(proxy.url);
    try {
      const seller = await call(api, "POST", "/api/agents/register", { name: "seller", hosted: true });
      const buyer = await call(api, "POST", "/api/agents/register", { name: "buyer", hosted: true });
      const buyerWallet = buyer.body.agent.wallet_address as Address;
      const price = 1_250_000n;
      expect((await call(api, "POST", "/api/dev/faucet", { address: buyerWallet, usdc_wei: "5000000" })).status).toBe(
        200,
      );
      const listing = await call(
        api,
        "POST",
        "/api/listings",
        { agent_id: seller.body.agent.id, title: "Crash", description: "x", price_wei: price.toString() },
        seller.body.api_key,
      );

      proxy.set(fault);
      const buying = call(api, "POST", `/api/listings/${listing.body.id}/buy`, {}, buyer.body.api_key, {
        "idempotency-key": `crash-${fault}`,
      }).catch(() => undefined);
      await proxy.broadcast();
      await kill(api);
      expect(await buying).toBeUndefined();

      // What the dead process left: its transaction row and a signed outbox row.
      const [row] = await db
        .select()
        .from(relayedTransactions)
        .where(eq(relayedTransactions.purpose, "fund"))
        .orderBy(relayedTransactions.createdAt)
        .then((rows) => rows.slice(-1));
      expect(row?.status).toBe("signed");
      const transactionId = row?.transactionId as string;

      proxy.set("none");
      api = await startApi(stack.rpcUrl);
      // The restart resumed the outbox before serving: the funding is on chain.
      const receipt = await publicClient.waitForTransactionReceipt({ hash: row?.txHash as `0x${string}` });
      expect(receipt.status).toBe("success");
      let state = "";
      for (let i = 0; i < 100 && state !== "FUNDED"; i++) {
        state = (await call(api, "GET", `/api/transactions/${transactionId}`)).body.state;
        if (state !== "FUNDED") await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(state).toBe("FUNDED");
      expect(await usdcOf(buyerWallet)).toBe(5_000_000n - price);
      const funded = await publicClient.getContractEvents({
        address: stack.deployment.contracts.AgentEscrow.address,
        abi: agentEscrowAbi,
        eventName: "Funded",
        args: { escrowId: escrowIdOfTransaction(buyerWallet, transactionId) },
        fromBlock: 0n,
      });
      expect(funded).toHaveLength(1);
      // Recorded in the outbox once mined.
      let status: string | undefined;
      for (let i = 0; i < 100 && status !== "mined"; i++) {
        const [after] = await db
          .select()
          .from(relayedTransactions)
          .where(eq(relayedTransactions.id, row?.id as string));
        status = after?.status;
        if (status !== "mined") await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe("mined");

      // The client retries under its key: nothing runs twice.
      const retry = await call(api, "POST", `/api/listings/${listing.body.id}/buy`, {}, buyer.body.api_key, {
        "idempotency-key": `crash-${fault}`,
      });
      expect(retry.status).toBe(409);
      expect(await usdcOf(buyerWallet)).toBe(5_000_000n - price);
      const mine = await call(api, "GET", `/api/transactions?agent_id=${buyer.body.agent.id}`);
      expect(mine.body.transactions).toHaveLength(1);
    } finally {
      await kill(api).catch(() => {});
      await proxy.close();
    }
  });
});

describe.each(["drop", "hold"] as const)("the API dies during an x402 payment's settlement (broadcast %s)", (fault) => {
  it("a restart settles it exactly once; the same payment presented again answers that escrow", async () => {
    const proxy = await rpcProxy();
    let api = await startApi(proxy.url);
    // A client address of its own on this machine (the faucet serves only those), with a fresh budget.
    const client = { "x-forwarded-for": `127.48.${fault === "drop" ? 1 : 2}.${1 + (Date.now() % 250)}` };
    try {
      const seller = await call(
        api,
        "POST",
        "/api/agents/register",
        { name: "x402 crash seller", hosted: true },
        undefined,
        client,
      );
      if (seller.status !== 201) throw new Error(`register answered ${seller.status}: ${JSON.stringify(seller.body)}`);
      const price = 1_750_000n;
      const listing = await call(
        api,
        "POST",
        "/api/listings",
        { agent_id: seller.body.agent.id, title: "Crash over x402", description: "x", price_wei: price.toString() },
        seller.body.api_key,
        client,
      );
      const payer = privateKeyToAccount(generatePrivateKey());
      const grant = await call(
        api,
        "POST",
        "/api/dev/faucet",
        { address: payer.address, usdc_wei: "5000000" },
        undefined,
        client,
      );
      expect(grant.status).toBe(200);
      // The stock client's payment for the listing's requirements (as @x402/fetch would send it).
      const network = `eip155:${stack.deployment.chainId}` as const;
      const stock = new x402Client()
        .register(network, new ExactEvmScheme(payer))
        .setSpendControls({ allowedAssets: [{ network, asset: stack.deployment.contracts.USDC.address }] });
      const unpaid = await fetch(`${api.url}/api/listings/${listing.body.id}/x402`, { headers: client });
      const required = decodePaymentRequiredHeader(unpaid.headers.get("payment-required") ?? "");
      // Signed on the chain's clock (other files may have moved it ahead of the wall clock).
      const clock = await clockAtChain(testMarket());
      const header = encodePaymentSignatureHeader(await stock.createPaymentPayload(required));
      clock.restore();
      const present = (at: Api) =>
        fetch(`${at.url}/api/listings/${listing.body.id}/x402`, {
          method: "POST",
          headers: { ...client, "PAYMENT-SIGNATURE": header },
        });

      proxy.set(fault);
      const paying = present(api).then(
        async (response) => `answered ${response.status}: ${await response.text()}`,
        () => undefined,
      );
      // The settlement is broadcast (and the API killed) before any answer.
      expect(await Promise.race([proxy.broadcast().then(() => "broadcast"), paying])).toBe("broadcast");
      await kill(api);
      expect(await paying).toBeUndefined();
      const [row] = await db
        .select()
        .from(relayedTransactions)
        .where(eq(relayedTransactions.purpose, "x402-fund"))
        .orderBy(relayedTransactions.createdAt)
        .then((rows) => rows.slice(-1));
      expect(row?.status).toBe("signed");

      proxy.set("none");
      api = await startApi(stack.rpcUrl);
      expect((await publicClient.waitForTransactionReceipt({ hash: row?.txHash as `0x${string}` })).status).toBe(
        "success",
      );
      // Presented again: the escrow the restart settled, paid once (no receipt token: it was settled before).
      const again = await present(api);
      expect(again.status).toBe(200);
      const body = (await again.json()) as { transaction_id: string; state: string; receipt_token?: string };
      expect(body).toMatchObject({ transaction_id: row?.transactionId, state: "FUNDED" });
      expect(body.receipt_token).toBeUndefined();
      expect(await usdcOf(payer.address)).toBe(5_000_000n - price);
    } finally {
      await kill(api).catch(() => {});
      await proxy.close();
    }
  });
});
