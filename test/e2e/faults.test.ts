/**
 * Parts of `pnpm start` stop in the middle of flows (SIGSTOP: a process that no longer answers,
 * as a hung or partitioned one would; SIGCONT brings it back), die in the middle of flows (SIGKILL:
 * `pnpm start` starts the indexer or Postgres again), and the chain re-organises away a funding
 * block (Hardhat's evm_revert, then a longer chain). The API dying between the chain and its record
 * is api/test/crash-recovery.test.ts. While a part is down, clients get a
 * clear 503, never wrong data; once it is back, every transaction reaches the state the chain holds
 * and no money moved twice.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { createMarketplaceClient, fundWithWallet, sendCalls, type WalletSigner } from "@agent-marketplace/sdk";
import { createPublicClient, createTestClient, createWalletClient, http } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callApi,
  eventually,
  json,
  killStack,
  newStackEnv,
  processesWith,
  registerHostedAgent,
  type StackEnv,
  type StackProcess,
  startStackProcess,
} from "./stack-process.ts";

let dir: string;
let env: StackEnv;
let stack: StackProcess;

beforeAll(async () => {
  ({ dir, env } = await newStackEnv("e2e-faults-"));
  stack = startStackProcess({ ...env, INDEXER_WAIT_MS: "2000", DATABASE_QUERY_TIMEOUT_MS: "2000" });
  await stack.healthy();
}, 240_000);

afterAll(async () => {
  await killStack(stack, env.DATA_DIR);
  if (!process.env.KEEP_TEST_DATA) rmSync(dir, { recursive: true, force: true });
});

const call = (method: string, route: string, body?: unknown, key?: string) =>
  callApi(stack.apiUrl, method, route, body, key);

/** `pids` stopped while `during` runs, continued afterwards whatever happens. */
async function whileStopped<T>(pids: number[], during: () => Promise<T>): Promise<T> {
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) process.kill(pid, "SIGSTOP");
  try {
    return await during();
  } finally {
    for (const pid of pids) process.kill(pid, "SIGCONT");
  }
}

/** Postgres of this stack: the postmaster (found by its port) and every backend it forked. */
function postgresProcesses(): number[] {
  const postmaster = processesWith(["-D", "-p", env.PG_PORT]).filter((pid) =>
    readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("postgres"),
  );
  const children = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return postmaster.includes(ppid);
      } catch {
        return false;
      }
    })
    .map(Number);
  return [...postmaster, ...children];
}

/**
 * The indexer has reached the chain's head (an indexer started again on a recovered database indexes
 * the chain anew; writes made before it is back would wait longer than this stack's 2 s).
 */
async function indexerCaughtUp() {
  await eventually(async () => {
    const health = await json(await fetch(`${stack.apiUrl}/api/health`));
    expect(health).toMatchObject({ status: "ok", indexer: { ok: true, lag_blocks: "0" } });
  }, 120_000);
}

async function purchase(price: bigint) {
  const seller = await registerHostedAgent(stack.apiUrl, "fault seller");
  const buyer = await registerHostedAgent(stack.apiUrl, "fault buyer", 10n * price);
  const listing = await call(
    "POST",
    "/api/listings",
    { agent_id: seller.id, title: "Fault-tolerant work", description: "e2e", price_wei: `${price}` },
    seller.key,
  );
  expect(listing.status).toBe(201);
  return { seller, buyer, listingId: listing.body.id as string };
}

const usdcOf = async (agentId: string) =>
  BigInt((await call("GET", `/api/wallet/balance?agent_id=${agentId}`)).body.usdc_wei);

describe("faults in the middle of flows", () => {
  it("the indexer: a buy answers 503 indexer_behind, the chain has it; once it runs, FUNDED, paid once", async () => {
    const price = 3_000_000n;
    const { buyer, listingId } = await purchase(price);
    const before = await usdcOf(buyer.id);
    const [indexer] = processesWith(["ponder", "--port", env.INDEXER_PORT]);
    const buy = () =>
      fetch(`${stack.apiUrl}/api/listings/${listingId}/buy`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${buyer.key}`, "idempotency-key": "k1" },
        body: "{}",
      });
    const answer = await whileStopped([indexer as number], async () => {
      const response = await buy();
      const body = await json(response);
      // The health check sees it too.
      const health = await fetch(`${stack.apiUrl}/api/health`);
      expect(health.status).toBe(503);
      expect((await json(health)).indexer.ok).toBe(false);
      return { status: response.status, body };
    });
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ code: "indexer_behind", transaction_id: expect.any(String) });
    const id = answer.body.transaction_id as string;
    // The chain holds the funding: once indexed, the transaction is FUNDED.
    await eventually(async () => expect((await call("GET", `/api/transactions/${id}`)).body.state).toBe("FUNDED"));
    // The same request again runs nothing: its first run may have moved money.
    const again = await buy();
    expect(again.status).toBe(409);
    expect((await json(again)).code).toBe("idempotency_key_in_progress");
    expect(await usdcOf(buyer.id)).toBe(before - price);
    await eventually(async () => expect((await fetch(`${stack.apiUrl}/api/health`)).status).toBe(200));
  });

  it("Postgres: requests answer 503 database_unavailable within the query timeout; afterwards all is well", async () => {
    const price = 2_000_000n;
    const { buyer, listingId } = await purchase(price);
    const down = await whileStopped(postgresProcesses(), async () => {
      const started = Date.now();
      const me = await call("GET", "/api/agents/me", undefined, buyer.key);
      return { ...me, ms: Date.now() - started };
    });
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ code: "database_unavailable" });
    expect(down.ms).toBeLessThan(10_000);
    await eventually(async () => expect((await fetch(`${stack.apiUrl}/api/health`)).status).toBe(200));
    const bought = await call("POST", `/api/listings/${listingId}/buy`, {}, buyer.key);
    expect(bought.body.state).toBe("FUNDED");
  });

  it("the indexer killed during a buy: pnpm start starts it again, it resumes from its checkpoint; FUNDED once", async () => {
    const price = 2_500_000n;
    const { buyer, listingId } = await purchase(price);
    const before = await usdcOf(buyer.id);
    const [indexer] = processesWith(["ponder", "--port", env.INDEXER_PORT]);
    process.kill(indexer as number, "SIGKILL");
    const bought = await call("POST", `/api/listings/${listingId}/buy`, {}, buyer.key);
    // Dead or already back and catching up: a clear 503 naming the transaction, or the answer.
    if (bought.status === 503) expect(bought.body).toMatchObject({ code: "indexer_behind" });
    else expect(bought.body.state).toBe("FUNDED");
    const id = bought.body.transaction_id as string;
    await eventually(
      async () => expect((await call("GET", `/api/transactions/${id}`)).body.state).toBe("FUNDED"),
      90_000,
    );
    expect(stack.output()).toMatch(/The indexer exited unexpectedly \(SIGKILL\); starting it again/);
    const [restarted] = processesWith(["ponder", "--port", env.INDEXER_PORT]);
    expect(restarted).toBeDefined();
    expect(restarted).not.toBe(indexer);
    // Resumed, not re-run: the funding is indexed once.
    const timeline = await call("GET", `/api/transactions/${id}/timeline`, undefined, buyer.key);
    expect(timeline.body.events.filter((event: { kind: string }) => event.kind === "FUNDED")).toHaveLength(1);
    expect(await usdcOf(buyer.id)).toBe(before - price);
    await eventually(async () => expect((await fetch(`${stack.apiUrl}/api/health`)).status).toBe(200));
  });

  it("Postgres killed mid-flow: 503 while it is gone; pnpm start recovers it; what was paid stays paid, once", async () => {
    const price = 1_500_000n;
    const { buyer, listingId } = await purchase(price);
    const before = await usdcOf(buyer.id);
    const first = await call("POST", `/api/listings/${listingId}/buy`, {}, buyer.key);
    expect(first.body.state).toBe("FUNDED");
    const processes = postgresProcesses();
    expect(processes.length).toBeGreaterThan(1);
    for (const pid of processes) process.kill(pid, "SIGKILL");
    const gone = await call("GET", "/api/agents/me", undefined, buyer.key);
    expect(gone.status).toBe(503);
    expect(gone.body).toMatchObject({ code: "database_unavailable" });
    await eventually(async () => expect((await fetch(`${stack.apiUrl}/api/health`)).status).toBe(200), 120_000);
    // Ponder commits without waiting for the disk, so its last block may have died with Postgres:
    // the indexer started again on the recovered database indexes it anew from the chain.
    await eventually(async () => {
      expect(stack.output()).toMatch(/Postgres exited unexpectedly \(\w+\); starting it again/);
      expect(stack.output()).toMatch(/Starting the indexer again on the recovered database/);
      expect(stack.output()).toMatch(/Postgres is running again/);
    }, 60_000);
    await eventually(async () => {
      const readBack = await call("GET", `/api/transactions/${first.body.transaction_id}`);
      expect(readBack.body.state).toBe("FUNDED");
    }, 60_000);
    await indexerCaughtUp();
    const second = await call("POST", `/api/listings/${listingId}/buy`, {}, buyer.key);
    expect(second.body.state).toBe("FUNDED");
    expect(await usdcOf(buyer.id)).toBe(before - 2n * price);
    const mine = await call("GET", `/api/transactions?agent_id=${buyer.id}`, undefined, buyer.key);
    expect(mine.body.transactions).toHaveLength(2);
  });

  it("a re-organisation drops the funding block: the purchase is PENDING again, nothing paid; funded anew, paid once", async () => {
    const rpc = http(`http://127.0.0.1:${env.HARDHAT_PORT}`);
    const testClient = createTestClient({ mode: "hardhat", chain: hardhat, transport: rpc });
    const account = mnemonicToAccount("test test test test test test test test test test test junk", {
      addressIndex: 5,
    });
    const signer: WalletSigner = {
      wallet: createWalletClient({ account, chain: hardhat, transport: rpc }),
      publicClient: createPublicClient({ chain: hardhat, transport: rpc }),
    };
    const seller = await registerHostedAgent(stack.apiUrl, "reorg seller");
    const buyer = createMarketplaceClient({ baseUrl: stack.apiUrl });
    const { agent } = await buyer.registerAgent({ agent_name: "reorg buyer", wallet_address: account.address });
    const price = 4_000_000n;
    const listing = await call(
      "POST",
      "/api/listings",
      { agent_id: seller.id, title: "Work across a reorg", description: "e2e", price_wei: `${price}` },
      seller.key,
    );
    const before = await usdcOf(agent.id);
    await indexerCaughtUp();

    const snapshot = await testClient.snapshot();
    const pending = await buyer.buyListing({ id: listing.body.id });
    if (pending.state !== "PENDING" || !("instructions" in pending)) throw new Error("expected PENDING instructions");
    const txHash = await sendCalls(signer, pending.instructions.calls);
    expect(await buyer.confirmFunding({ id: pending.transaction_id, tx_hash: txHash })).toMatchObject({
      state: "FUNDED",
    });
    expect(await usdcOf(agent.id)).toBe(before - price);

    // The blocks of the approve and the funding are abandoned; a longer chain without them follows.
    expect(await testClient.request({ method: "evm_revert", params: [snapshot] })).toBe(true);
    await testClient.mine({ blocks: 4 });
    await eventually(async () =>
      expect((await call("GET", `/api/transactions/${pending.transaction_id}`)).body.state).toBe("PENDING"),
    );
    expect(await usdcOf(agent.id)).toBe(before);

    // Funded again (gasless this time): FUNDED, and the buyer has paid once in all.
    const funded = await fundWithWallet(buyer, signer, pending, { gasless: true });
    expect(funded).toMatchObject({ state: "FUNDED" });
    expect((await call("GET", `/api/transactions/${pending.transaction_id}`)).body.state).toBe("FUNDED");
    expect(await usdcOf(agent.id)).toBe(before - price);
  });
});
