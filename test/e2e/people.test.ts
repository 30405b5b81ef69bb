/**
 * The people around the agents, over real HTTP against `pnpm start`, through the SDK: an owner who
 * runs a hosted agent from a Sign-In with Ethereum session alone (registers it, recovers it after
 * losing its key, acts as it, withdraws its USDC to the owner's wallet), and the arbiter, who
 * decides a dispute from the desk alone (the queue, the whole case, the ruling with a note). Money
 * is checked on chain.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { readDeployment } from "@agent-marketplace/contracts";
import { createMarketplaceClient, MarketplaceError } from "@agent-marketplace/sdk";
import { type Address, createPublicClient, erc20Abi, http, type PublicClient } from "viem";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { devAccount, sessionClient } from "./dev-accounts.ts";
import { eventually } from "./stack-process.ts";

/** The arbiter of the local deployment (dev account #1). */
const ARBITER_ACCOUNT = 1;
/** A dev account no other file uses: the owner signs in with it and receives the agent's USDC. */
const OWNER_ACCOUNT = 10;
const USDC = 1_000_000n;

const { env, apiUrl } = inject("sharedStack");
let publicClient: PublicClient;
let usdc: Address;
let arbiterKey: string;

beforeAll(async () => {
  publicClient = createPublicClient({ transport: http(`http://127.0.0.1:${env.HARDHAT_PORT}`) });
  const deployment = readDeployment(31337, env.DEPLOYMENTS_DIR);
  if (!deployment) throw new Error("no deployment");
  usdc = deployment.contracts.USDC.address;
  arbiterKey = readFileSync(path.join(env.DATA_DIR, "arbiter.key"), "utf8").trim();
});

const client = (apiKey?: string) => createMarketplaceClient({ baseUrl: apiUrl, apiKey });

const usdcOf = (address: Address) =>
  publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] });

/** The status a call is refused with. */
async function refusal(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (error) {
    if (error instanceof MarketplaceError) return error.status;
    throw error;
  }
  throw new Error("the call was not refused");
}

/** A hosted agent with its own client, and USDC from the faucet. */
async function hosted(name: string, usdcWei = 0n) {
  const agent = client();
  const { agent: profile } = await agent.registerAgent({ name, hosted: true });
  if (usdcWei > 0n) await agent.requestTestUsdc({ address: profile.wallet_address, usdc_wei: usdcWei.toString() });
  return { client: agent, id: profile.id, wallet: profile.wallet_address as Address };
}

describe("an owner runs a hosted agent from a session alone", () => {
  it("registers it, loses its key, issues a new one, acts as it and withdraws its USDC to the owner's wallet", async () => {
    const owner = devAccount(OWNER_ACCOUNT);
    const session = await sessionClient(apiUrl, OWNER_ACCOUNT);

    const created = await session.createOwnedAgent({ name: "owned by a person", bio: "runs from a dashboard" });
    const agentId = created.agent.id;
    const wallet = created.agent.wallet_address as Address;
    expect(created.agent.hosted).toBe(true);
    const lostKey = created.api_key;
    await client().requestTestUsdc({ address: wallet, usdc_wei: (5n * USDC).toString() });
    expect((await client(lostKey).getMe()).id).toBe(agentId);

    // The key is lost: the owner issues a new one and ends every other.
    const issued = await session.issueAgentKey({ id: agentId, revoke_others: true });
    expect(issued.api_key).toMatch(/^[0-9a-f]{64}$/);
    expect(await refusal(client(lostKey).getMe())).toBe(401);
    expect((await client(issued.api_key).getMe()).id).toBe(agentId);
    const { keys } = await session.listAgentKeys({ id: agentId });
    expect(keys.filter((key) => key.revoked_at === null).map((key) => key.prefix)).toEqual([
      issued.api_key.slice(0, 8),
    ]);

    const owned = await session.listOwnedAgents();
    expect(owned.agents.find((agent) => agent.id === agentId)).toMatchObject({ hosted: true, live_keys: 1 });

    // Acting as the agent: X-Agent-Id on every request of the session.
    session.actAs(agentId);
    expect((await session.getMe()).id).toBe(agentId);
    const ownerBefore = await usdcOf(owner.address);
    const withdrawal = await session.withdrawUsdc({
      destination_address: owner.address,
      amount_wei: (5n * USDC).toString(),
    });
    expect(withdrawal.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    await eventually(async () => {
      expect(await usdcOf(owner.address)).toBe(ownerBefore + 5n * USDC);
      expect(await usdcOf(wallet)).toBe(0n);
    });
    const { notifications } = await session.listNotifications();
    expect(notifications.map((notification) => notification.kind)).toContain("wallet.withdrawal");

    // Another person's session cannot act for the agent, even naming it.
    const stranger = await sessionClient(apiUrl, OWNER_ACCOUNT + 1);
    stranger.actAs(agentId);
    expect(await refusal(stranger.getMe())).toBe(403);
    expect(await refusal(stranger.listAgentKeys({ id: agentId }))).toBe(403);
    // An agent's key is not an owner's credential.
    expect(await refusal(client(issued.api_key).listOwnedAgents())).toBe(403);
  });
});

describe("the arbiter decides a dispute from the desk alone", () => {
  it("reads the queue and the case, rules 60/40 with a note; both parties read it, money moves on chain", async () => {
    const price = 4n * USDC;
    const buyer = await hosted("disputing buyer", price);
    const seller = await hosted("disputed seller");
    const listing = await seller.client.createListing({
      agent_id: seller.id,
      title: "Write release notes",
      description: "For the last ten merged pull requests.",
      price_wei: price.toString(),
    });
    const bought = await buyer.client.buyListing({ id: listing.id });
    const id = bought.transaction_id;
    await seller.client.deliverWork({ id, deliverable: "Notes for five pull requests." });
    await buyer.client.sendMessage({ to_agent_id: seller.id, content: "Where are the other five?" });
    await seller.client.sendMessage({ to_agent_id: buyer.id, content: "They had no description." });
    const reason = "Only half of the pull requests are covered.";
    expect((await buyer.client.openDispute({ id, reason })).state).toBe("DISPUTED");
    await buyer.client.addEvidence({ id, content: "Five of ten pull requests are missing." });
    await seller.client.addEvidence({ id, content: "Those five had empty descriptions." });

    // The desk by the arbiter's session (its on-chain address signs in) and by its key.
    const desk = await sessionClient(apiUrl, ARBITER_ACCOUNT);
    const queue = await desk.listDisputes();
    const queued = queue.disputes.find((item) => item.transaction_id === id);
    expect(queued).toMatchObject({ raised_by: "buyer", reason, evidence_count: 2 });
    const dispute = await desk.getDispute({ transaction_id: id });
    expect(dispute.reason).toBe(reason);
    expect(dispute.deliverable).toMatchObject({ content: "Notes for five pull requests.", matches_chain: true });
    expect(dispute.evidence).toHaveLength(2);
    expect(dispute.messages.map((message) => message.content)).toEqual([
      "Where are the other five?",
      "They had no description.",
    ]);
    expect(await refusal(buyer.client.listDisputes())).toBe(403);

    const before = { buyer: await usdcOf(buyer.wallet), seller: await usdcOf(seller.wallet) };
    const note = "Half the notes were written; the rest could have been asked for.";
    const ruled = await client(arbiterKey).resolveDispute({ id, seller_bps: 6_000, note });
    expect(ruled.state).toBe("RELEASED");
    const sellerShare = (price * 6_000n) / 10_000n;
    const fee = BigInt(ruled.resolution.fee_wei);
    expect(await usdcOf(seller.wallet)).toBe(before.seller + sellerShare - fee);
    expect(await usdcOf(buyer.wallet)).toBe(before.buyer + price - sellerShare);

    for (const party of [buyer, seller]) {
      expect((await party.client.getTransaction({ id })).resolution?.note).toBe(note);
      await eventually(async () => {
        const { notifications } = await party.client.listNotifications();
        expect(notifications.map((notification) => notification.kind)).toContain("transaction.resolved");
      });
    }
    expect((await client().getTransaction({ id })).resolution?.note).toBeNull();
    const open = await desk.listDisputes({ status: "open" });
    expect(open.disputes.map((item) => item.transaction_id)).not.toContain(id);
    const resolved = await desk.listDisputes({ status: "resolved" });
    expect(resolved.disputes.map((item) => item.transaction_id)).toContain(id);
  });
});
