import { and, eq } from "drizzle-orm";
import { createPublicClient, createTestClient, http, type PublicClient, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chainInstance, clientThatCannotBroadcast, fundedAccount, harmlessCall } from "../../test/relayer-fixtures.ts";
import { createDatabase, type Database } from "../db/client.ts";
import { relayedTransactions } from "../db/schema.ts";
import { migrateDatabase } from "../migrate.ts";
import { createHostedSender } from "./hosted-sender.ts";
import { createRelayer } from "./relayer.ts";

/*
 * A hosted wallet's own transactions on the suite's real node and Postgres: the platform relayer
 * (a fresh key with ETH) tops the wallet up to exactly what each transaction may cost, and the
 * wallet's outbox heals what a failed broadcast left before anything new is sent.
 */

const stack = inject("stack");
const chainId = stack.deployment.chainId;
let db: Database;
let publicClient: PublicClient;

beforeAll(async () => {
  db = createDatabase(stack.databaseUrl, { max: 10 });
  await migrateDatabase(db);
  publicClient = createPublicClient({ transport: http(stack.rpcUrl) }) as PublicClient;
});
afterAll(() => db.$client.end());

async function newSender(client: PublicClient = publicClient, instance = chainInstance()) {
  const platformRelayer = createRelayer({
    db,
    publicClient,
    chainId,
    chainInstance: instance,
    account: await fundedAccount(),
  });
  return createHostedSender({ db, publicClient: client, chainId, chainInstance: instance, platformRelayer });
}

/** The most `txHash` could cost its sender: its gas limit at its fee cap. */
async function maxCostOf(txHash: `0x${string}`) {
  const tx = await publicClient.getTransaction({ hash: txHash });
  return tx.gas * (tx.maxFeePerGas ?? 0n);
}

describe("hosted sender", () => {
  it("tops the wallet up to exactly the transaction's most: all of it, the rest, or nothing", async () => {
    const sender = await newSender();
    const wallet = privateKeyToAccount(generatePrivateKey());

    // No ETH: the whole most it may cost.
    const first = await sender.submit(wallet, harmlessCall(0));
    expect(first.topUpWei).toBe(await maxCostOf(first.txHash));
    expect((await publicClient.getTransaction({ hash: first.topUpTxHash as `0x${string}` })).value).toBe(
      first.topUpWei,
    );
    expect((await sender.confirm(wallet, first.txHash)).status).toBe("success");

    // What the first left: only the rest.
    const left = await publicClient.getBalance({ address: wallet.address });
    expect(left).toBeGreaterThan(0n);
    const second = await sender.submit(wallet, harmlessCall(1));
    expect(second.topUpWei).toBe((await maxCostOf(second.txHash)) - left);
    expect((await sender.confirm(wallet, second.txHash)).status).toBe("success");

    // Enough already: nothing.
    await createTestClient({ mode: "hardhat", transport: http(stack.rpcUrl) }).setBalance({
      address: wallet.address,
      value: parseEther("1"),
    });
    const third = await sender.submit(wallet, harmlessCall(2));
    expect(third).toMatchObject({ topUpWei: 0n, topUpTxHash: undefined });
    expect((await sender.confirm(wallet, third.txHash)).status).toBe("success");
    expect(await publicClient.getTransactionCount({ address: wallet.address })).toBe(3);
  });

  it("a transaction whose broadcast failed is sent before the next one, in nonce order", async () => {
    const instance = chainInstance();
    const wallet = privateKeyToAccount(generatePrivateKey());
    const crashed = await newSender(clientThatCannotBroadcast(), instance);
    const lost = await crashed.submit(wallet, harmlessCall(0));
    expect(await crashed.outboxStatus(lost.txHash)).toBe("signed");
    expect(await publicClient.getTransactionCount({ address: wallet.address, blockTag: "pending" })).toBe(0);

    const restarted = await newSender(publicClient, instance);
    const next = await restarted.submit(wallet, harmlessCall(1));
    expect([lost.nonce, next.nonce]).toEqual([0, 1]);
    for (const sent of [lost, next]) expect((await restarted.confirm(wallet, sent.txHash)).status).toBe("success");
    const rows = await db
      .select({ status: relayedTransactions.status })
      .from(relayedTransactions)
      .where(and(eq(relayedTransactions.chainInstance, instance), eq(relayedTransactions.fromAddress, wallet.address)));
    expect(rows.map((row) => row.status)).toEqual(["mined", "mined"]);
    expect(await restarted.outboxStatus(`0x${"00".repeat(32)}`)).toBeUndefined();
  });

  it("two API processes sending from one wallet at once: each tops up what it needs, every transaction lands", async () => {
    const instance = chainInstance();
    // Two processes: each its own sender (its own in-process turns), one database, one chain.
    const processes = [await newSender(publicClient, instance), await newSender(publicClient, instance)];
    const wallet = privateKeyToAccount(generatePrivateKey());
    const sends = Array.from({ length: 6 }, (_, i) =>
      (processes[i % 2] as Awaited<ReturnType<typeof newSender>>).submit(wallet, harmlessCall(10 + i)),
    );
    const sent = await Promise.all(sends);
    const receipts = await Promise.all(
      sent.map((one) => (processes[0] as Awaited<ReturnType<typeof newSender>>).confirm(wallet, one.txHash)),
    );
    expect(receipts.map((receipt) => receipt.status)).toEqual(sent.map(() => "success"));
    expect(sent.map((one) => one.nonce).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await publicClient.getTransactionCount({ address: wallet.address })).toBe(6);
  });
});
