import pino from "pino";
import type { Address, Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Market, sellerOnChain, testMarket, USDC } from "../../../test/escrow.ts";
import {
  get,
  json,
  patch,
  post,
  registerHosted,
  type TestApp,
  testApp,
  uniqueWord,
  usdcBalance,
} from "../../../test/harness.ts";
import { createKeeper } from "../../keeper/keeper.ts";

/*
 * Bounties on the suite's real chain: posted and funded at once (hosted) or through instructions
 * (external, hidden until funded), claimed once (the relayer assigns the seller as the escrow's
 * operator), delivered and released; a missed deadline re-opens the claim. Dev account 7 is this
 * file's own.
 */
const EXTERNAL_POSTER = 7;
const REWARD = 5_000_000n;

let t: TestApp;
let market: Market;

let keeper: ReturnType<typeof createKeeper>;

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
  keeper = createKeeper({ db: t.db, config: t.config, ...t.services, logger: pino({ level: "silent" }) });
});
afterAll(() => t.close());

interface Agent {
  id: string;
  key: string;
  wallet: Address;
}

const usdcOf = usdcBalance;

const hosted = (usdc = 0n): Promise<Agent> => registerHosted(t.app, "hosted", usdc);

async function postBounty(poster: Agent, fields: Record<string, unknown> = {}) {
  const response = await post(
    t.app,
    "/api/listings",
    {
      agent_id: poster.id,
      title: `Bounty ${uniqueWord()}`,
      description: "Find the bug",
      price_wei: REWARD.toString(),
      listing_type: "BOUNTY",
      ...fields,
    },
    poster.key,
  );
  return { status: response.status, body: await json(response) };
}

const claim = (listingId: string, key: string, body: unknown = {}) =>
  post(t.app, `/api/listings/${listingId}/claim`, body, key);

describe("a hosted poster's bounty", () => {
  it("is funded at once, listed, claimed by one agent, delivered and released", async () => {
    const poster = await hosted(20n * USDC);
    const { status, body: bounty } = await postBounty(poster, { deadline_hours: 48 });
    expect(status).toBe(201);
    expect(bounty).toMatchObject({
      listing_type: "BOUNTY",
      is_active: true,
      delivery_hours: 48,
      funding: { state: "FUNDED" },
    });
    expect(await usdcOf(poster.wallet)).toBe(20n * USDC - REWARD);
    const page = await json(
      await get(t.app, `/api/listings?listing_type=BOUNTY&keyword=${bounty.title.split(" ")[1]}`),
    );
    expect(page.listings.map((listing: { id: string }) => listing.id)).toEqual([bounty.id]);
    expect(page.listings[0].delivery_hours, "the card says how long the hunter has").toBe(48);

    const hunter = await hosted();
    const claimed = await claim(bounty.id, hunter.key);
    expect(claimed.status).toBe(200);
    const answer = await json(claimed);
    expect(answer).toMatchObject({ success: true, transaction_id: bounty.funding.transaction_id, state: "FUNDED" });
    const hoursLeft = (Date.parse(answer.deadline) - Date.now()) / 3_600_000;
    expect(hoursLeft).toBeGreaterThan(47);
    expect(await sellerOnChain(market, answer.transaction_id)).toBe(hunter.wallet);
    const detail = await json(await get(t.app, `/api/transactions/${answer.transaction_id}`));
    expect(detail).toMatchObject({ state: "FUNDED", seller: { id: hunter.id }, buyer: { id: poster.id } });

    // Claimed once: the next claimant is refused.
    const late = await hosted();
    expect((await claim(bounty.id, late.key)).status).toBe(409);

    const id = answer.transaction_id;
    expect((await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "found it" }, hunter.key)).status).toBe(
      200,
    );
    const released = await post(t.app, `/api/transactions/${id}/release`, {}, poster.key);
    expect(released.status).toBe(200);
    const { seller_received_wei, fee_wei } = await json(released);
    expect(BigInt(seller_received_wei) + BigInt(fee_wei)).toBe(REWARD);
    expect(await usdcOf(hunter.wallet)).toBe(BigInt(seller_received_wei));
  });

  it("10 claims at once: exactly one wins, the escrow names it, the others change nothing", async () => {
    const poster = await hosted(10n * USDC);
    const { body: bounty } = await postBounty(poster);
    const hunters = await Promise.all(Array.from({ length: 10 }, () => hosted()));
    const responses = await Promise.all(hunters.map((hunter) => claim(bounty.id, hunter.key)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(9);
    const winner = hunters[statuses.indexOf(200)] as Agent;
    expect(await sellerOnChain(market, bounty.funding.transaction_id)).toBe(winner.wallet);
    const detail = await json(await get(t.app, `/api/transactions/${bounty.funding.transaction_id}`));
    expect(detail.seller.id).toBe(winner.id);
  });

  it("refuses: own bounty 400, a FIXED listing 400, unknown 404, a short balance 402 with nothing created", async () => {
    const poster = await hosted(10n * USDC);
    const { body: bounty } = await postBounty(poster);
    expect((await claim(bounty.id, poster.key)).status).toBe(400);
    const fixed = await json(
      await post(
        t.app,
        "/api/listings",
        { agent_id: poster.id, title: "Fixed", description: "x", price_wei: "1000" },
        poster.key,
      ),
    );
    const hunter = await hosted();
    expect((await claim(fixed.id, hunter.key)).status).toBe(400);
    expect((await claim("6f1c2e9a-3b4d-4c5e-8f70-123456789abc", hunter.key)).status).toBe(404);
    expect((await claim(bounty.id, hunter.key, { agent_id: poster.id })).status).toBe(403);
    expect((await claim(bounty.id, hunter.key, { agent_id: "hunter" })).status).toBe(400);
    const poor = await hosted();
    const refused = await postBounty(poor);
    expect(refused.status).toBe(402);
    const mine = await json(await get(t.app, "/api/agents/me", poor.key));
    expect(mine.listings).toEqual([]);
  });
});

/** The external agent whose wallet is a dev account that holds USDC (one wallet, one agent). */
let externalAgent: Agent | undefined;
async function externalPoster(): Promise<Agent> {
  if (externalAgent) return externalAgent;
  const external = await json(
    await post(t.app, "/api/agents/register", {
      agent_name: "dev poster",
      wallet_address: market.address(EXTERNAL_POSTER),
    }),
  );
  externalAgent = { id: external.agent.id, key: external.api_key, wallet: market.address(EXTERNAL_POSTER) };
  return externalAgent;
}

/** Sends the funding instructions' calls from the external poster's wallet; the last call's receipt. */
async function fundFromWallet(instructions: { calls: { to: Address; data: Hex }[] }) {
  const wallet = market.accounts[EXTERNAL_POSTER]?.wallet;
  if (!wallet) throw new Error("no wallet");
  let receipt: Awaited<ReturnType<typeof market.publicClient.waitForTransactionReceipt>> | undefined;
  for (const call of instructions.calls) {
    const hash = await wallet.sendTransaction({ to: call.to, data: call.data });
    receipt = await market.publicClient.waitForTransactionReceipt({ hash });
  }
  if (!receipt) throw new Error("no calls");
  return receipt;
}

describe("an external poster's bounty", () => {
  it("is hidden until the poster's funding is confirmed, then claimable", async () => {
    const agent = await externalPoster();
    const word = uniqueWord();
    const { status, body: bounty } = await postBounty(agent, { title: `Bounty ${word}` });
    expect(status).toBe(201);
    expect(bounty).toMatchObject({ is_active: false, funding: { state: "PENDING" } });
    expect((await json(await get(t.app, `/api/listings?keyword=${word}`))).listings).toEqual([]);
    const hunter = await hosted();
    expect((await claim(bounty.id, hunter.key)).status).toBe(409);

    const { transactionHash } = await fundFromWallet(bounty.funding.instructions);
    const confirmed = await post(
      t.app,
      `/api/transactions/${bounty.funding.transaction_id}/confirm`,
      { tx_hash: transactionHash },
      agent.key,
    );
    expect(confirmed.status).toBe(200);
    expect((await json(await get(t.app, `/api/listings?keyword=${word}`))).listings).toHaveLength(1);
    expect((await claim(bounty.id, hunter.key)).status).toBe(200);
  });

  it("cannot be listed by its owner before funding; funded without a confirm, the keeper lists it once", async () => {
    const agent = await externalPoster();
    const word = uniqueWord();
    const { body: bounty } = await postBounty(agent, { title: `Bounty ${word}` });
    const listing = `/api/listings/${bounty.id}`;
    const relist = await patch(t.app, listing, { is_active: true }, agent.key);
    expect(relist.status).toBe(409);
    expect((await json(await get(t.app, listing))).is_active).toBe(false);
    expect((await keeper.runOnce()).listed).not.toContain(bounty.id);

    const { blockNumber } = await fundFromWallet(bounty.funding.instructions);
    expect(await t.services.indexed.wait(blockNumber)).toBe(true);
    expect((await keeper.runOnce()).listed).toContain(bounty.id);
    expect((await json(await get(t.app, `/api/listings?keyword=${word}`))).listings).toHaveLength(1);
    expect((await keeper.runOnce()).listed).not.toContain(bounty.id);
    // Delisted by its owner after funding, it stays delisted.
    expect((await patch(t.app, listing, { is_active: false }, agent.key)).status).toBe(200);
    expect((await keeper.runOnce()).listed).not.toContain(bounty.id);
    expect((await json(await get(t.app, listing))).is_active).toBe(false);
  });
});

describe("a missed deadline", () => {
  it("re-opens the bounty: another agent claims it, the first can no longer deliver", async () => {
    const poster = await hosted(10n * USDC);
    const { body: bounty } = await postBounty(poster, { deadline_hours: 1 });
    const first = await hosted();
    const second = await hosted();
    expect((await claim(bounty.id, first.key)).status).toBe(200);
    expect((await claim(bounty.id, second.key)).status).toBe(409);
    await market.increaseTime(2 * 3600);
    expect((await claim(bounty.id, second.key)).status).toBe(200);
    expect(await sellerOnChain(market, bounty.funding.transaction_id)).toBe(second.wallet);
    const id = bounty.funding.transaction_id;
    expect((await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "late" }, first.key)).status).toBe(403);
    expect((await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "on time" }, second.key)).status).toBe(
      200,
    );
  });
});
