/**
 * The query strings of clients written for the live service (its MCP package, skill.md and
 * heartbeat.md routines), sent over real HTTP to `pnpm start` exactly as they send them: each is
 * answered 200 with what it asks for, where this API once answered 400 for a key it did not know or
 * a limit above 100. Uses no dev account: its agents are hosted, funded by the local faucet.
 */
import { randomBytes } from "node:crypto";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, inject, it } from "vitest";
import { callApi, registerHostedAgent } from "./stack-process.ts";

const { apiUrl } = inject("sharedStack");

const call = (method: string, route: string, body?: unknown, key?: string) => callApi(apiUrl, method, route, body, key);

/** A GET as the client sends it: 200, or the test fails naming the request and the answer. */
async function read(route: string, key?: string) {
  const { status, body } = await call("GET", route, undefined, key);
  expect(status, `${route}: ${JSON.stringify(body).slice(0, 300)}`).toBe(200);
  return body;
}

interface Card {
  id: string;
  category: string;
  listing_type: string;
  price_wei: string;
  agent: { id: string };
}

const word = () => `live${randomBytes(5).toString("hex")}`;

describe("the live service's clients' query strings", () => {
  it("are answered with what they ask for", async () => {
    // An owner (a wallet of a person) whose hosted agent posts a bounty; two other agents.
    const owner = privateKeyToAccount(generatePrivateKey());
    const tag = word();
    const registered = await call("POST", "/api/agents/register", {
      name: `${tag} poster`,
      owner_address: owner.address,
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const poster = { id: registered.body.agent.id as string, key: registered.body.api_key as string };
    const granted = await call("POST", "/api/dev/faucet", {
      address: registered.body.agent.wallet_address,
      usdc_wei: "20000000",
    });
    expect(granted.status).toBe(200);
    const seller = await registerHostedAgent(apiUrl, `${tag} seller`);
    const peer = await registerHostedAgent(apiUrl, `${tag} peer`);

    const listing = async (agent: { id: string; key: string }, fields: Record<string, unknown>) => {
      const { status, body } = await call(
        "POST",
        "/api/listings",
        { agent_id: agent.id, title: `${tag} work`, description: "for the live clients", ...fields },
        agent.key,
      );
      expect(status, JSON.stringify(body)).toBe(201);
      return body as { id: string };
    };
    const bounty = await listing(poster, { listing_type: "BOUNTY", category: "coding", price_wei: "5000000" });
    const cheap = await listing(seller, { category: "data", price_wei: "1000000" });
    const dear = await listing(seller, { category: "coding", price_wei: "3000000" });
    const delisted = await listing(seller, { category: "writing", price_wei: "2000000" });
    expect((await call("DELETE", `/api/listings/${delisted.id}`, undefined, seller.key)).status).toBe(200);

    // The register answer's own advice: poll open bounties, newest first.
    const bounties = await read("/api/listings?listing_type=BOUNTY&status=active&sort=newest");
    expect(bounties.listings.every((card: Card) => card.listing_type === "BOUNTY")).toBe(true);
    expect(bounties.listings.map((card: Card) => card.id)).toContain(bounty.id);

    // skill=coding: coding listings.
    const coding = await read("/api/listings?skill=coding");
    expect(coding.listings.every((card: Card) => card.category === "coding")).toBe(true);
    expect(coding.listings.map((card: Card) => card.id)).toEqual(expect.arrayContaining([bounty.id, dear.id]));

    // owner=0x…: that owner's agents' listings only.
    const owned = await read(`/api/listings?owner=${owner.address}`);
    expect(owned.listings.map((card: Card) => card.id)).toEqual([bounty.id]);
    expect((await read(`/api/listings?owner=${owner.address.toLowerCase()}`)).listings).toEqual(owned.listings);

    // include_completed=true: the delisted one too, which the default leaves out.
    const withCompleted = await read(`/api/listings?include_completed=true&keyword=${tag}`);
    expect(withCompleted.listings.map((card: Card) => card.id)).toContain(delisted.id);
    const activeOnly = await read(`/api/listings?keyword=${tag}`);
    expect(activeOnly.listings.map((card: Card) => card.id)).not.toContain(delisted.id);
    expect((await read("/api/listings?include_completed=true")).listings.length).toBeGreaterThan(0);

    // categories=coding: coding listings (any of those named).
    const categories = await read("/api/listings?categories=coding");
    expect(categories.listings.every((card: Card) => card.category === "coding")).toBe(true);
    expect(categories.listings.map((card: Card) => card.id)).toContain(dear.id);

    // sort=expensive and sort=highest: price descending, the same order.
    const expensive = await read("/api/listings?sort=expensive");
    const prices = expensive.listings.map((card: Card) => BigInt(card.price_wei));
    expect(prices.every((price: bigint, k: number) => k === 0 || prices[k - 1] >= price)).toBe(true);
    expect(await read("/api/listings?sort=highest")).toEqual(expensive);
    const mine = (await read(`/api/listings?sort=expensive&keyword=${tag}`)).listings.map((card: Card) => card.id);
    expect(mine).toEqual([bounty.id, dear.id, cheap.id]);

    // limit=200: at most 100, not a 400.
    const big = await read("/api/listings?limit=200");
    expect(big.listings.length).toBeGreaterThan(0);
    expect(big.listings.length).toBeLessThanOrEqual(100);
    expect(await read("/api/listings?limit=100")).toEqual(big);

    // The feed by type: a post, then only posts; only events.
    const content = `${tag} says hello`;
    expect((await call("POST", "/api/feed", { content }, peer.key)).status).toBe(201);
    const posts = await read("/api/feed?type=post");
    expect(posts.items.every((item: { kind: string }) => item.kind === "post")).toBe(true);
    expect(posts.items.map((item: { content?: string }) => item.content)).toContain(content);
    const events = await read("/api/feed?type=event");
    expect(events.items.every((item: { kind: string }) => item.kind === "event")).toBe(true);

    // The directory: an owner's agents, and search by name.
    const ownersAgents = await read(`/api/agents?owner=${owner.address}`);
    expect(ownersAgents.agents.map((agent: { id: string }) => agent.id)).toEqual([poster.id]);
    const found = await read(`/api/agents?search=${tag}`);
    expect(found.agents.map((agent: { id: string }) => agent.id).sort()).toEqual(
      [poster.id, seller.id, peer.id].sort(),
    );

    // Transactions with the owner's address, sent with its agent's key: that agent's own.
    const bought = await call("POST", `/api/listings/${cheap.id}/buy`, {}, poster.key);
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    const transactions = await read(`/api/transactions?owner=${owner.address}`, poster.key);
    expect(transactions.transactions.map((item: { id: string }) => item.id)).toContain(bought.body.transaction_id);
    for (const item of transactions.transactions as { buyer: { id: string }; seller: { id: string } | null }[]) {
      expect([item.buyer.id, item.seller?.id]).toContain(poster.id);
    }
    // Another agent's key with that address sees none of them.
    expect((await read(`/api/transactions?owner=${owner.address}`, seller.key)).transactions).toEqual([]);

    // Messages: agent_id names the peer, and the answer is that thread.
    expect((await call("POST", "/api/messages/send", { to_agent_id: peer.id, content: "hi" }, poster.key)).status).toBe(
      201,
    );
    expect(
      (await call("POST", "/api/messages/send", { to_agent_id: poster.id, content: "hello" }, peer.key)).status,
    ).toBe(201);
    const thread = await read(`/api/messages?agent_id=${peer.id}`, poster.key);
    expect(thread.peer).toEqual({ id: peer.id, name: `${tag} peer` });
    expect(thread.messages.map((message: { content: string }) => message.content)).toEqual(["hello", "hi"]);
    expect(await read(`/api/messages/${peer.id}`, poster.key)).toEqual(thread);
  });
});
