import { agentEscrowAbi } from "@agent-marketplace/contracts";
import { and, eq, sql } from "drizzle-orm";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  http,
  type PublicClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chainInstance, clientThatCannotBroadcast, fundedAccount, harmlessCall } from "../../test/relayer-fixtures.ts";
import { createDatabase, type Database } from "../db/client.ts";
import { relayedTransactions } from "../db/schema.ts";
import { migrateDatabase } from "../migrate.ts";
import { createRelayer, RelayRevertedError } from "./relayer.ts";

/*
 * The relayer against the suite's real Hardhat node and Postgres. Each test sends from a fresh key
 * funded with ETH, so no other test shares its nonces. Faults are injected only where the outside
 * world would cause them: an RPC endpoint that refuses to broadcast (test/relayer-fixtures.ts).
 */

const stack = inject("stack");
const chain = { id: stack.deployment.chainId } as const;
let db: Database;
let publicClient: PublicClient;
const escrow = stack.deployment.contracts.AgentEscrow.address as Address;

beforeAll(async () => {
  db = createDatabase(stack.databaseUrl, { max: 10 });
  await migrateDatabase(db);
  publicClient = createPublicClient({ transport: http(stack.rpcUrl) }) as PublicClient;
});
afterAll(() => db.$client.end());

async function rowsOf(address: Address, chainInstance: string) {
  return db
    .select()
    .from(relayedTransactions)
    .where(and(eq(relayedTransactions.fromAddress, address), eq(relayedTransactions.chainInstance, chainInstance)))
    .orderBy(relayedTransactions.nonce);
}

const instance = chainInstance;

describe("relayer", () => {
  it("20 concurrent submissions get 20 consecutive nonces and all land", async () => {
    const account = await fundedAccount();
    const chainInstance = instance();
    const relayer = createRelayer({ db, publicClient, chainId: chain.id, chainInstance, account });
    const sent = await Promise.all(Array.from({ length: 20 }, (_, i) => relayer.submit(harmlessCall(i))));
    expect(sent.map((s) => s.nonce).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const receipts = await Promise.all(sent.map((s) => relayer.confirm(s.txHash)));
    expect(receipts.every((receipt) => receipt.status === "success")).toBe(true);
    const rows = await rowsOf(account.address, chainInstance);
    expect(rows.map((row) => row.status)).toEqual(Array(20).fill("mined"));
    expect(await publicClient.getTransactionCount({ address: account.address })).toBe(20);
  });

  it("submissions waiting for their turn hold no pooled connection: a pool smaller than the crowd drains", async () => {
    // Each record uses a second connection of the same pool while its submission holds the lock;
    // waiters parked in the database would take every connection and starve it.
    const small = createDatabase(stack.databaseUrl, { max: 2 });
    try {
      const account = await fundedAccount();
      const relayer = createRelayer({ db: small, publicClient, chainId: chain.id, chainInstance: instance(), account });
      const sent = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          relayer.submit({
            ...harmlessCall(i),
            record: async () => {
              await small.execute(sql`SELECT 1`);
            },
          }),
        ),
      );
      expect(sent.map((s) => s.nonce).sort((a, b) => a - b)).toEqual(Array.from({ length: 8 }, (_, i) => i));
    } finally {
      await small.$client.end();
    }
  }, 30_000);

  it("a quoted submission is signed with the quote's gas limit and fees; a value is sent along", async () => {
    const account = await fundedAccount();
    const relayer = createRelayer({ db, publicClient, chainId: chain.id, chainInstance: instance(), account });
    const quote = await relayer.quote(harmlessCall(0));
    const quoted = await relayer.submit({ ...harmlessCall(0), quote });
    expect((await relayer.confirm(quoted.txHash)).status).toBe("success");
    expect(await publicClient.getTransaction({ hash: quoted.txHash })).toMatchObject({
      gas: quote.gas,
      maxFeePerGas: quote.maxFeePerGas,
      maxPriorityFeePerGas: quote.maxPriorityFeePerGas,
    });
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const paid = await relayer.submit({ to: payee, data: "0x", value: 1234n, purpose: "test" });
    expect((await relayer.confirm(paid.txHash)).status).toBe("success");
    expect(await publicClient.getBalance({ address: payee })).toBe(1234n);
  });

  it("a call that would revert is refused before anything is signed or recorded", async () => {
    const account = await fundedAccount();
    const chainInstance = instance();
    const relayer = createRelayer({ db, publicClient, chainId: chain.id, chainInstance, account });
    const release = encodeFunctionData({
      abi: agentEscrowAbi,
      functionName: "release",
      args: [
        `0x${"ab".repeat(32)}`,
        {
          buyer: account.address,
          seller: account.address,
          amount: 1n,
          deadline: 1,
          disputeWindow: 0,
          deliveredAt: 0,
          feeBps: 0,
        },
      ],
    });
    await expect(relayer.submit({ to: escrow, data: release, purpose: "release" })).rejects.toBeInstanceOf(
      RelayRevertedError,
    );
    await expect(relayer.quote({ to: escrow, data: release })).rejects.toBeInstanceOf(RelayRevertedError);
    expect(await rowsOf(account.address, chainInstance)).toEqual([]);
    expect(await publicClient.getTransactionCount({ address: account.address })).toBe(0);
  });

  it("the caller's rows commit with the outbox row, or neither does", async () => {
    const account = await fundedAccount();
    const chainInstance = instance();
    const relayer = createRelayer({ db, publicClient, chainId: chain.id, chainInstance, account });
    await expect(
      relayer.submit({
        ...harmlessCall(0),
        record: async () => {
          throw new Error("the caller's insert failed");
        },
      }),
    ).rejects.toThrow("the caller's insert failed");
    expect(await rowsOf(account.address, chainInstance)).toEqual([]);
    // Nothing was broadcast either: the next submission takes nonce 0.
    const next = await relayer.submit(harmlessCall(1));
    expect(next.nonce).toBe(0);
    expect((await relayer.confirm(next.txHash)).status).toBe("success");
  });

  it("a crash between commit and broadcast heals on resume: sent once, in nonce order", async () => {
    const account = await fundedAccount();
    const chainInstance = instance();
    // The first process records two transactions, then its endpoint fails before they are sent.
    const crashed = createRelayer({
      db,
      publicClient: clientThatCannotBroadcast(),
      chainId: chain.id,
      chainInstance,
      account,
    });
    const first = await crashed.submit(harmlessCall(0));
    const second = await crashed.submit(harmlessCall(1));
    expect([first.nonce, second.nonce]).toEqual([0, 1]);
    expect(await publicClient.getTransactionCount({ address: account.address, blockTag: "pending" })).toBe(0);
    expect((await rowsOf(account.address, chainInstance)).map((row) => row.status)).toEqual(["signed", "signed"]);

    // The restarted process finishes them, and its own next submission follows them.
    const restarted = createRelayer({ db, publicClient, chainId: chain.id, chainInstance, account });
    expect(await restarted.resume()).toBe(2);
    const third = await restarted.submit(harmlessCall(2));
    expect(third.nonce).toBe(2);
    for (const sent of [first, second, third]) expect((await restarted.confirm(sent.txHash)).status).toBe("success");
    // Resuming again finds nothing open, and sends nothing twice.
    await restarted.resume();
    expect(await restarted.resume()).toBe(0);
    expect(await publicClient.getTransactionCount({ address: account.address })).toBe(3);
    expect((await rowsOf(account.address, chainInstance)).map((row) => row.status)).toEqual([
      "mined",
      "mined",
      "mined",
    ]);
  });

  it("a recorded transaction whose nonce another transaction took is marked dropped", async () => {
    const account = await fundedAccount();
    const chainInstance = instance();
    const crashed = createRelayer({
      db,
      publicClient: clientThatCannotBroadcast(),
      chainId: chain.id,
      chainInstance,
      account,
    });
    const lost = await crashed.submit(harmlessCall(0));
    // Someone else uses the key for nonce 0 meanwhile.
    const wallet = createWalletClient({ account, transport: http(stack.rpcUrl) });
    const other = await wallet.sendTransaction({ chain: null, to: account.address, value: 0n, nonce: 0 });
    await publicClient.waitForTransactionReceipt({ hash: other });

    const restarted = createRelayer({ db, publicClient, chainId: chain.id, chainInstance, account });
    expect(await restarted.resume()).toBe(1);
    const [row] = await rowsOf(account.address, chainInstance);
    expect(row).toMatchObject({ txHash: lost.txHash, status: "dropped" });
    expect((await restarted.submit(harmlessCall(1))).nonce).toBe(1);
  });

  it("rows of an earlier chain with the same id are never sent again", async () => {
    const account = await fundedAccount();
    const earlier = createRelayer({
      db,
      publicClient: clientThatCannotBroadcast(),
      chainId: chain.id,
      chainInstance: instance(),
      account,
    });
    await earlier.submit(harmlessCall(0));
    const now = createRelayer({ db, publicClient, chainId: chain.id, chainInstance: instance(), account });
    expect(await now.resume()).toBe(0);
    const sent = await now.submit(harmlessCall(1));
    expect(sent.nonce).toBe(0);
    expect((await now.confirm(sent.txHash)).status).toBe("success");
  });
});
