/**
 * `pnpm rehearse`: production as an operator runs it, start to finish, on this machine.
 *
 *   1. a Postgres server (postgres-server.ts: DATABASE_URL, or Debian's, installed where missing);
 *   2. Base (base-chain.ts): a node answering as chain 8453, Circle's USDC at Base's address, the
 *      escrow deployed by the documented deploy command with fresh service keys;
 *   3. the indexer, the API and the keeper as separate processes with production settings
 *      (services.ts);
 *   4. money flows through the SDK (flows.ts), the API, the indexer and the keeper each killed
 *      (SIGKILL, the whole process group) and started again once in the middle of one;
 *   5. every wallet's USDC on chain against what the flows moved (ledger.ts), every transaction's
 *      state against its escrow's, /metrics and /api/ready answering, every log line JSON.
 *
 * Prints each phase's time and exits non-zero on the first thing that is not as it should be. The
 * data lives in .data/rehearsal (removed at the end unless KEEP_REHEARSAL_DATA is set).
 */
import { mkdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { agentEscrowAbi, mintCircleUsdc, setCircleUsdcPaused } from "@agent-marketplace/contracts";
import { MarketplaceError } from "@agent-marketplace/sdk";
import { createWalletClient, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type BaseChain, baseAt, startBase } from "./base-chain.ts";
import { createFlows, eventually, USDC } from "./flows.ts";
import { Ledger, usdcOf } from "./ledger.ts";
import { expectSeries, positive, sampleValue, scrape } from "./metrics-check.ts";
import { checkOperations } from "./operations-check.ts";
import { type PostgresServer, postgresServer } from "./postgres-server.ts";
import { productionServices, type Services } from "./services.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dataDir = path.join(root, ".data", "rehearsal");
const logsDir = path.join(dataDir, "logs");
const PORTS = { node: 8645, postgres: 5645, api: 3645, keeper: 3646, indexer: 42645, webhooks: 3647 };

const timings: Array<{ phase: string; seconds: number }> = [];
async function phase<T>(name: string, run: () => Promise<T>): Promise<T> {
  const began = performance.now();
  console.log(`\n▶ ${name}`);
  const result = await run();
  const seconds = Math.round((performance.now() - began) / 100) / 10;
  timings.push({ phase: name, seconds });
  console.log(`  done in ${seconds} s`);
  return result;
}

rmSync(dataDir, { recursive: true, force: true });
mkdirSync(logsDir, { recursive: true });
const began = performance.now();
let postgres: PostgresServer | undefined;
let base: BaseChain | undefined;
let services: Services | undefined;
let failed = false;
// A webhook receiver that always fails: deliveries back up, then are given up (the metrics show it).
const failingReceiver = createServer((_request, response) => response.writeHead(500).end()).listen(
  PORTS.webhooks,
  "127.0.0.1",
);
try {
  postgres = await phase("Postgres server", () => postgresServer({ dataDir, port: PORTS.postgres }));
  const database = postgres;
  base = await phase("Base-like chain, Circle's USDC, escrow by the deploy command", () =>
    startBase({ port: PORTS.node, dataDir, logFile: path.join(logsDir, "node.log") }),
  );
  const chain = base;
  services = productionServices({ base: chain, databaseUrl: database.url, ports: PORTS, logsDir });
  const running = services;
  await phase("indexer, API and keeper started as separate processes", async () => {
    console.log(`  indexer ready in ${await running.indexer.start()} ms`);
    console.log(`  API ready in ${await running.api.start()} ms`);
    console.log(`  keeper ready in ${await running.keeper.start()} ms`);
  });

  const feeBps = BigInt(
    await chain.publicClient.readContract({
      address: chain.deployment.contracts.AgentEscrow.address,
      abi: agentEscrowAbi,
      functionName: "feeBps",
    }),
  );
  const minter = createWalletClient({
    account: chain.minter,
    chain: baseAt(chain.rpcUrl),
    transport: http(chain.rpcUrl),
  });
  const ledger = new Ledger(chain, feeBps, (to, amount) =>
    mintCircleUsdc({ wallet: minter, publicClient: chain.publicClient, token: chain.usdc, to, amount }),
  );
  const flows = createFlows(chain, running, ledger);

  const { seller, buyer, outsider, listings } = await phase("agents and listings through the SDK", async () => {
    const seller = await flows.register("hosted seller");
    const buyer = await flows.register("hosted buyer", { usdc: 200n * USDC });
    const outsider = await flows.register("BYOB buyer", {
      external: true,
      usdc: 50n * USDC,
      webhookUrl: `http://127.0.0.1:${PORTS.webhooks}/hooks`,
    });
    const listings = {
      report: await flows.listing(seller, "Audit report", 8_500_000n),
      review: await flows.listing(seller, "Code review", 12n * USDC),
      summary: await flows.listing(seller, "Paper summary", 5n * USDC),
      translation: await flows.listing(seller, "Translation", 20n * USDC),
      check: await flows.listing(seller, "Quick check", 1n * USDC),
    };
    return { seller, buyer, outsider, listings };
  });

  await phase("hosted purchase: buy, deliver, release", () =>
    flows.hostedPurchase(buyer, seller, listings.report, 8_500_000n),
  );

  await phase("the API killed during a purchase, started again: one escrow, paid once", async () => {
    // Killed once the purchase's transaction reached the chain and before it was mined, let alone
    // recorded: the chain has it, the API does not know. Mining waits meanwhile.
    await chain.testClient.setAutomine(false);
    const id = await flows
      .buyAcrossInterrupt(buyer, listings.review, 12n * USDC, async () => {
        await eventually(
          "the purchase's transaction at the node",
          async () => {
            const pending = await chain.publicClient.getBlock({ blockTag: "pending" });
            if (pending.transactions.length === 0) throw new Error("nothing sent yet");
          },
          20_000,
        );
        await running.api.kill();
        await chain.testClient.setAutomine(true);
        await chain.testClient.mine({ blocks: 1 });
        console.log(
          `  API killed with the purchase's transaction sent, not mined; started again in ${await running.api.start()} ms`,
        );
      })
      .finally(() => chain.testClient.setAutomine(true));
    await seller.client.deliverWork({ id, deliverable: "The review." });
    await buyer.client.releaseEscrow({ id });
    ledger.settle(seller.wallet, 12n * USDC, 10_000n);
  });

  await phase("the indexer killed during a purchase, started again: FUNDED once", async () => {
    await running.indexer.kill();
    // Blocks go on without it (Base makes one every 2 s): readiness fails, the lag shows.
    // One at a time: EDR's OP chain panics building blocks that hardhat_mine reserved in a batch.
    for (let block = 0; block < 10; block++) await chain.testClient.mine({ blocks: 1 });
    const lagging = await fetch(`${running.apiUrl}/api/ready`);
    if (lagging.status !== 503) throw new Error(`/api/ready answered ${lagging.status} with the indexer down`);
    const lag = sampleValue(await scrape(running.apiUrl), "marketplace_indexer_lag_blocks") ?? 0;
    if (lag < 10) throw new Error(`marketplace_indexer_lag_blocks is ${lag} with the indexer down 10 blocks`);
    console.log(`  indexer down: /api/ready 503, marketplace_indexer_lag_blocks ${lag}`);
    const restarted = running.indexer.start();
    // The write is on chain at once; its answer waits for the indexer (INDEXER_WAIT_MS), then says
    // 503 indexer_behind, naming the transaction to read again.
    const transactionId = await buyer.client.buyListing({ id: listings.summary }).then(
      (bought) => {
        console.log(`  buy answered ${bought.state} once the indexer was back`);
        return bought.transaction_id;
      },
      (error: unknown) => {
        if (!(error instanceof MarketplaceError && error.code === "indexer_behind")) throw error;
        console.log("  buy answered 503 indexer_behind, naming the transaction");
        return String(error.body.transaction_id);
      },
    );
    console.log(`  indexer ready again in ${await restarted} ms`);
    ledger.pay(buyer.wallet, 5n * USDC);
    await eventually("FUNDED once indexed", async () => {
      const state = await flows.state(buyer, transactionId);
      if (state !== "FUNDED") throw new Error(`state ${state}`);
    });
    await seller.client.deliverWork({ id: transactionId, deliverable: "The summary." });
    await buyer.client.releaseEscrow({ id: transactionId });
    ledger.settle(seller.wallet, 5n * USDC, 10_000n);
  });

  await phase("BYOB buyer funds by EIP-3009 over Circle's domain; dispute ruled 70/30", () =>
    flows.byobDisputed(outsider, seller, listings.translation, 20n * USDC, 7_000),
  );

  await phase("x402: the stock @x402/fetch client pays Circle's USDC, unset; released by its receipt token", () =>
    flows.x402Purchase(seller, listings.check, 1n * USDC),
  );

  await phase("the keeper killed; the dispute window passes; started again, it releases", async () => {
    const id = await flows.deliveredAndLeft(buyer, seller, listings.report, 8_500_000n);
    await running.keeper.kill();
    await chain.testClient.increaseTime({ seconds: 24 * 3600 + 60 });
    await chain.testClient.mine({ blocks: 1 });
    console.log(`  keeper ready again in ${await running.keeper.start()} ms`);
    await eventually(
      "released by the keeper",
      async () => {
        const state = await flows.state(buyer, id);
        if (state !== "RELEASED") throw new Error(`state ${state}`);
      },
      90_000,
    );
    ledger.settle(seller.wallet, 8_500_000n, 10_000n);
  });

  await phase("Circle pauses USDC: a release is credited; unpaused, the keeper pays it out", async () => {
    const bought = await buyer.client.buyListing({ id: listings.summary });
    ledger.pay(buyer.wallet, 5n * USDC);
    await seller.client.deliverWork({ id: bought.transaction_id, deliverable: "Another summary." });
    const circle = { wallet: minter, publicClient: chain.publicClient, token: chain.usdc };
    await setCircleUsdcPaused({ ...circle, paused: true });
    const released = await buyer.client.releaseEscrow({ id: bought.transaction_id });
    if (released.state !== "RELEASED") throw new Error(`release while paused: ${released.state}`);
    const held = await usdcOf(chain, chain.deployment.contracts.AgentEscrow.address);
    const owed = await eventually("the credits in /metrics", async () => {
      const value = sampleValue(await scrape(running.apiUrl), "marketplace_escrow_credits_owed_usdc") ?? 0;
      if (value !== 5) throw new Error(`marketplace_escrow_credits_owed_usdc ${value}`);
      return value;
    });
    console.log(
      `  released while paused: the escrow holds ${Number(held) / 1e6} USDC of credited payouts (marketplace_escrow_credits_owed_usdc ${owed})`,
    );
    await setCircleUsdcPaused({ ...circle, paused: false });
    ledger.settle(seller.wallet, 5n * USDC, 10_000n);
    await eventually("the credits paid out by the keeper", () => ledger.check(), 60_000);
  });

  await phase("the hosted seller withdraws to its owner's wallet", () =>
    flows.withdraw(seller, privateKeyToAccount(generatePrivateKey()).address, 10n * USDC),
  );

  await phase("balances on chain, transactions, metrics, readiness, logs", async () => {
    console.table(await ledger.check());
    await checkOperations({ services: running, buyer, seller, outsider, logsDir });
  });

  await phase("/metrics: the series an operator watches", async () => {
    // A refusal of the messages limit (20 a minute by default) and a notification stream held open.
    let refused = 0;
    for (let i = 0; i < 25 && refused === 0; i++) {
      await seller.client
        .sendMessage({ to_agent_id: buyer.id, content: `Thanks for the purchase (${i})` })
        .catch((error: unknown) => {
          if (!(error instanceof MarketplaceError && error.status === 429)) throw error;
          refused++;
        });
    }
    const stream = new AbortController();
    const listening = await fetch(`${running.apiUrl}/api/notifications/stream`, {
      headers: { authorization: `Bearer ${buyer.key}`, accept: "text/event-stream" },
      signal: stream.signal,
    });
    if (listening.status !== 200) throw new Error(`the notification stream answered ${listening.status}`);
    await eventually("the webhook deliveries given up", async () => {
      if (!((sampleValue(await scrape(running.apiUrl), "marketplace_webhook_deliveries_failed") ?? 0) > 0))
        throw new Error("none yet");
    });
    const samples = await scrape(running.apiUrl);
    stream.abort();
    console.table(
      expectSeries(samples, [
        ["marketplace_http_request_duration_seconds_count", {}, positive, "> 0"],
        ["marketplace_escrows", {}, (n) => n === 7, "7 (every escrow of the rehearsal)"],
        ["marketplace_escrows", { state: "RELEASED" }, positive, "> 0"],
        ["marketplace_relayer_pending_transactions", { account: "relayer" }, (n) => n === 0, "0 (all mined)"],
        ["marketplace_relayer_last_used_nonce", { account: "relayer" }, positive, "> 0"],
        ["marketplace_relayer_chain_next_nonce", { account: "relayer", block: "latest" }, positive, "> 0"],
        ["marketplace_relayer_balance_ether", { account: "relayer" }, positive, "> 0"],
        ["marketplace_webhook_deliveries_failed", {}, positive, "> 0"],
        ["marketplace_webhook_deliveries_pending", {}, (n) => n >= 0, "present"],
        ["marketplace_indexer_indexed_block", {}, positive, "> 0"],
        ["marketplace_chain_head_block", {}, positive, "> 0"],
        ["marketplace_indexer_lag_blocks", {}, (n) => n <= 5, "≤ 5 (caught up)"],
        ["marketplace_escrow_credits_owed_usdc", {}, (n) => n === 0, "0 (paid out)"],
        ["marketplace_rate_limit_refusals_total", { limit: "messages" }, positive, "> 0"],
        ["marketplace_notification_streams_open", {}, positive, "> 0"],
      ]),
    );
  });
} catch (error) {
  failed = true;
  console.error(`\n✗ The rehearsal failed: ${(error as Error).stack ?? error}`);
  console.error(`  Logs: ${path.relative(root, logsDir)} (kept)`);
} finally {
  await Promise.all([services?.api.stop(), services?.keeper.stop(), services?.indexer.stop()]);
  await base?.node.stop();
  await postgres?.stop();
  failingReceiver.close();
  if (!failed && !process.env.KEEP_REHEARSAL_DATA) rmSync(dataDir, { recursive: true, force: true });
}
timings.push({ phase: "whole rehearsal", seconds: Math.round((performance.now() - began) / 100) / 10 });
console.log("\nRehearsal timings");
console.table(timings);
if (failed) process.exit(1);
console.log("The rehearsal passed: every wallet holds what the flows moved, nothing lost.");
