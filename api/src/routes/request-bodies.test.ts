import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../test/escrow.ts";
import {
  ARBITER_API_KEY,
  createListing,
  get,
  json,
  newWallet,
  patch,
  post,
  registerHosted,
  signIn,
  type TestApp,
  testApp,
  uniqueWord,
  usdcBalance,
} from "../../test/harness.ts";
import { agents, evidence, listings, messages, reviews } from "../db/schema.ts";

/*
 * Request bodies, route family by route family: a field the API does not know is ignored (clients
 * written for the live service send such fields and must work unchanged), while a field it knows
 * is validated strictly (a wrong type is 400 and changes nothing). Every party here is a hosted
 * agent, so the file sends from no dev account.
 */

/** Fields no route knows, as other clients send them. */
const EXTRA = { client_version: "2.3.1", wallet_provider: "coinbase", nested: { anything: [1, 2] } };

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

async function count(table: "agents" | "listings" | "transactions" | "messages"): Promise<number> {
  const { rows } = await t.db.execute<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM ${sql.identifier("app")}.${sql.identifier(table)}`,
  );
  return rows[0]?.n ?? 0;
}

async function expect400(response: Response) {
  expect(response.status, await response.clone().text()).toBe(400);
  const body = await json(response);
  expect(body).toMatchObject({ error: expect.any(String), code: expect.stringMatching(/invalid_request|bad_request/) });
  return body;
}

/** A FIXED purchase between two hosted agents, FUNDED; the buyer holds `spare` USDC afterwards. */
async function fundedPurchase(price = 2n * USDC, spare = 5n * USDC) {
  const seller = await registerHosted(t.app, "seller");
  const buyer = await registerHosted(t.app, "buyer", price + spare);
  const listing = await createListing(t.app, seller, { price_wei: price.toString() });
  const bought = await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key);
  expect(bought.status).toBe(200);
  return { seller, buyer, listing, transactionId: (await json(bought)).transaction_id as string };
}

describe("agents", () => {
  it("register: the spec's quick-start body with extra fields makes a hosted agent; a bio of the wrong type is 400", async () => {
    const before = await count("agents");
    await expect400(await post(t.app, "/api/agents/register", { name: "typed", bio: 5, ...EXTRA }));
    expect(await count("agents")).toBe(before);

    const response = await post(t.app, "/api/agents/register", { name: "quick start", bio: "I review code", ...EXTRA });
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(body.agent).toMatchObject({ name: "quick start", hosted: true });
    const [row] = await t.db.select().from(agents).where(eq(agents.id, body.agent.id));
    expect(row).toMatchObject({ bio: "I review code", hosted: true, metadata: {} });
  });

  it("PATCH /me: an unknown field is ignored and the known ones apply; is_paused as a string is 400", async () => {
    const agent = await registerHosted(t.app, "patched");
    const before = await json(await get(t.app, "/api/agents/me", agent.key));
    await expect400(await patch(t.app, "/api/agents/me", { is_paused: "true", bio: "changed" }, agent.key));
    expect(await json(await get(t.app, "/api/agents/me", agent.key))).toEqual(before);

    const response = await patch(
      t.app,
      "/api/agents/me",
      { bio: "changed", wallet_address: newWallet().address, ...EXTRA },
      agent.key,
    );
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({ bio: "changed", wallet_address: before.wallet_address });
  });
});

describe("listings", () => {
  it("create and update: read-only and unknown fields are ignored; a numeric price that is not a safe whole number is 400", async () => {
    const seller = await registerHosted(t.app, "lister");
    const fields = { agent_id: seller.id, title: "Typed", description: "d", price_wei: "1000000" };
    const before = await count("listings");
    // A safe whole number is taken as its digits (schemas/common.ts bodyWei); a fraction is not.
    await expect400(await post(t.app, "/api/listings", { ...fields, price_wei: 1_000_000.5 }, seller.key));
    expect(await count("listings")).toBe(before);

    const created = await post(
      t.app,
      "/api/listings",
      { ...fields, times_purchased: 99, avg_rating: "5.00", ...EXTRA },
      seller.key,
    );
    expect(created.status).toBe(201);
    const listing = await json(created);
    expect(listing).toMatchObject({ price_wei: "1000000", times_purchased: 0, is_active: true });

    const [stored] = await t.db.select().from(listings).where(eq(listings.id, listing.id));
    await expect400(await patch(t.app, `/api/listings/${listing.id}`, { is_active: "false" }, seller.key));
    expect((await t.db.select().from(listings).where(eq(listings.id, listing.id)))[0]).toEqual(stored);
    const updated = await patch(t.app, `/api/listings/${listing.id}`, { price_wei: "2000000", ...EXTRA }, seller.key);
    expect(updated.status).toBe(200);
    expect(await json(updated)).toMatchObject({ price_wei: "2000000", price_usdc: "2.00" });
  });
});

describe("purchases", () => {
  it("buy and claim: unknown fields are ignored; deadline_hours as a string is 400 and buys nothing", async () => {
    const seller = await registerHosted(t.app, "seller");
    const buyer = await registerHosted(t.app, "buyer", 10n * USDC);
    const listing = await createListing(t.app, seller, { price_wei: "1000000" });
    const before = await count("transactions");
    await expect400(await post(t.app, `/api/listings/${listing.id}/buy`, { deadline_hours: "24" }, buyer.key));
    expect(await count("transactions")).toBe(before);
    expect(await usdcBalance(buyer.wallet)).toBe(10n * USDC);

    const bought = await post(t.app, `/api/listings/${listing.id}/buy`, { deadline_hours: 24, ...EXTRA }, buyer.key);
    expect(bought.status).toBe(200);
    expect(await json(bought)).toMatchObject({ state: "FUNDED" });

    const bounty = await createListing(t.app, buyer, { listing_type: "BOUNTY", price_wei: "1000000" });
    await expect400(await post(t.app, `/api/listings/${bounty.id}/claim`, { agent_id: 42 }, seller.key));
    const claimed = await post(t.app, `/api/listings/${bounty.id}/claim`, { ...EXTRA }, seller.key);
    expect(claimed.status).toBe(200);
    expect(await json(claimed)).toMatchObject({ success: true, state: "FUNDED" });
  });
});

describe("transactions", () => {
  it("direct create: unknown fields are ignored; a negative amount is 400 and creates nothing", async () => {
    const seller = await registerHosted(t.app, "seller");
    const buyer = await registerHosted(t.app, "buyer", 5n * USDC);
    const fields = { buyer_agent_id: buyer.id, seller_agent_id: seller.id, amount_wei: "1000000" };
    const before = await count("transactions");
    await expect400(await post(t.app, "/api/transactions", { ...fields, amount_wei: "-1000000" }, buyer.key));
    expect(await count("transactions")).toBe(before);
    const created = await post(t.app, "/api/transactions", { ...fields, memo: "for the logo", ...EXTRA }, buyer.key);
    expect(created.status, await created.clone().text()).toBe(201);
  });

  it("deliver, dispute, evidence and resolve: unknown fields are ignored; wrong types are 400 and move nothing", async () => {
    const { seller, buyer, transactionId } = await fundedPurchase();
    const path = `/api/transactions/${transactionId}`;
    await expect400(await post(t.app, `${path}/deliver`, { deliverable: ["work"] }, seller.key));
    await expect400(await post(t.app, `${path}/deliver`, { deliverable: "work", deliverable_url: 5 }, seller.key));
    expect((await json(await get(t.app, path))).state).toBe("FUNDED");

    const delivered = await post(
      t.app,
      `${path}/deliver`,
      { deliverable: "work", agent_id: seller.id, ...EXTRA },
      seller.key,
    );
    expect(delivered.status).toBe(200);

    await expect400(await post(t.app, `${path}/dispute`, { reason: 42 }, buyer.key));
    expect((await json(await get(t.app, path))).state).toBe("DELIVERED");
    const disputed = await post(t.app, `${path}/dispute`, { reason: "Not what I asked for", ...EXTRA }, buyer.key);
    expect(disputed.status).toBe(200);

    await expect400(await post(t.app, `${path}/evidence`, { content: "x", url: "ftp://files" }, buyer.key));
    expect(await t.db.select().from(evidence).where(eq(evidence.transactionId, transactionId))).toEqual([]);
    const added = await post(t.app, `${path}/evidence`, { content: "The brief said French", ...EXTRA }, buyer.key);
    expect(added.status).toBe(201);

    const arbiter = ARBITER_API_KEY;
    await expect400(await post(t.app, `${path}/resolve`, { seller_bps: "half" }, arbiter));
    expect((await json(await get(t.app, path))).state).toBe("DISPUTED");
    const resolved = await post(t.app, `${path}/resolve`, { seller_bps: 5_000, note: "Split", ...EXTRA }, arbiter);
    expect(resolved.status).toBe(200);
    expect(await json(resolved)).toMatchObject({ state: "RELEASED", resolution: { seller_bps: 5_000 } });
  });

  it("release and refund: an optional body with unknown fields is accepted; tx_hash of the wrong type is 400", async () => {
    const delivered = await fundedPurchase();
    const path = `/api/transactions/${delivered.transactionId}`;
    expect((await post(t.app, `${path}/deliver`, { deliverable: "work" }, delivered.seller.key)).status).toBe(200);
    await expect400(await post(t.app, `${path}/release`, { tx_hash: 7 }, delivered.buyer.key));
    const released = await post(
      t.app,
      `${path}/release`,
      { agent_id: delivered.buyer.id, ...EXTRA },
      delivered.buyer.key,
    );
    expect(released.status).toBe(200);
    expect(await json(released)).toMatchObject({ state: "RELEASED" });

    const funded = await fundedPurchase();
    const refundPath = `/api/transactions/${funded.transactionId}/refund`;
    await expect400(await post(t.app, refundPath, { signed: "yes" }, funded.buyer.key));
    const refunded = await post(t.app, refundPath, { reason: "changed my mind", ...EXTRA }, funded.buyer.key);
    expect(refunded.status).toBe(200);
    expect(await json(refunded)).toMatchObject({ state: "REFUNDED" });
  });
});

describe("reviews", () => {
  it("an unknown field is ignored; a rating given as text is 400 and stores nothing", async () => {
    const { seller, buyer, transactionId } = await fundedPurchase();
    const path = `/api/transactions/${transactionId}`;
    expect((await post(t.app, `${path}/deliver`, { deliverable: "work" }, seller.key)).status).toBe(200);
    expect((await post(t.app, `${path}/release`, {}, buyer.key)).status).toBe(200);
    await expect400(await post(t.app, `${path}/review`, { rating: "5" }, buyer.key));
    expect(await t.db.select().from(reviews).where(eq(reviews.transactionId, transactionId))).toEqual([]);
    const reviewed = await post(t.app, `${path}/review`, { rating: 5, comment: "Great", ...EXTRA }, buyer.key);
    expect(reviewed.status).toBe(201);
  });
});

describe("messages", () => {
  it("direct messages and feed posts: unknown fields are ignored; content as a number is 400 and sends nothing", async () => {
    const [alice, bob] = [await registerHosted(t.app, "alice"), await registerHosted(t.app, "bob")];
    const before = await count("messages");
    await expect400(await post(t.app, "/api/messages/send", { to_agent_id: bob.id, content: 5 }, alice.key));
    await expect400(await post(t.app, "/api/feed", { content: { text: "hi" } }, alice.key));
    expect(await count("messages")).toBe(before);
    const sent = await post(
      t.app,
      "/api/messages/send",
      { to_agent_id: bob.id, content: "Hello", subject: "hi", ...EXTRA },
      alice.key,
    );
    expect(sent.status).toBe(201);
    const posted = await post(t.app, "/api/feed", { content: "Open for work", tags: ["x"], ...EXTRA }, alice.key);
    expect(posted.status).toBe(201);
    expect(await t.db.select().from(messages).where(eq(messages.senderAgentId, alice.id))).toHaveLength(2);
  });
});

describe("notifications", () => {
  it("mark read: an unknown field is ignored; all as a string is 400", async () => {
    const agent = await registerHosted(t.app, "reader");
    await expect400(await post(t.app, "/api/notifications/read", { all: "yes" }, agent.key));
    const read = await post(t.app, "/api/notifications/read", { all: true, ...EXTRA }, agent.key);
    expect(read.status).toBe(200);
  });
});

describe("wallet", () => {
  it("faucet and withdraw: unknown fields are ignored; a faucet amount as a number, a fractional withdrawal is 400 and moves nothing", async () => {
    const agent = await registerHosted(t.app, "withdrawer");
    await expect400(await post(t.app, "/api/dev/faucet", { address: agent.wallet, usdc_wei: 3_000_000 }));
    expect(await usdcBalance(agent.wallet)).toBe(0n);
    const granted = await post(t.app, "/api/dev/faucet", { address: agent.wallet, usdc_wei: "3000000", ...EXTRA });
    expect(granted.status).toBe(200);

    const destination = newWallet().address;
    const withdraw = { destination_address: destination, amount_wei: "1000000" };
    await expect400(await post(t.app, "/api/wallet/withdraw", { ...withdraw, amount_wei: 1_000_000.5 }, agent.key));
    expect(await usdcBalance(agent.wallet)).toBe(3n * USDC);
    const sent = await post(t.app, "/api/wallet/withdraw", { ...withdraw, network: "base", ...EXTRA }, agent.key);
    expect(sent.status, await sent.clone().text()).toBe(200);
    expect(await usdcBalance(destination)).toBe(USDC);
  });
});

describe("owner sessions", () => {
  it("login: an unknown field is ignored; a signature of the wrong type is 400", async () => {
    const { message, signature } = await signIn(t.app, newWallet(), t.config.chainId);
    await expect400(await post(t.app, "/api/auth/login", { message, signature: 1234 }));
    const login = await post(t.app, "/api/auth/login", { message, signature, remember_me: true, ...EXTRA });
    expect(login.status, await login.clone().text()).toBe(200);
  });
});

describe("ERC-8004 identity", () => {
  it("register: an unknown field is ignored; tx_hash of the wrong type is 400", async () => {
    const agent = await registerHosted(t.app, `identity ${uniqueWord()}`);
    await expect400(await post(t.app, "/api/agents/me/erc8004/register", { tx_hash: 12 }, agent.key));
    const registered = await post(t.app, "/api/agents/me/erc8004/register", { ...EXTRA }, agent.key);
    expect(registered.status, await registered.clone().text()).toBe(201);
  });
});

describe("the OpenAPI document", () => {
  it("says so: no request body refuses additional properties", async () => {
    const document = await json(await get(t.app, "/api/openapi.json"));
    const strict: string[] = [];
    const visit = (schema: unknown, where: string) => {
      if (typeof schema !== "object" || schema === null) return;
      const node = schema as Record<string, unknown>;
      if (node.additionalProperties === false) strict.push(where);
      for (const [key, value] of Object.entries(node)) visit(value, `${where}.${key}`);
    };
    const resolve = (schema: { $ref?: string }) =>
      schema.$ref ? document.components.schemas[schema.$ref.replace("#/components/schemas/", "")] : schema;
    for (const [path, operations] of Object.entries<Record<string, { requestBody?: { content: object } }>>(
      document.paths,
    )) {
      for (const [method, operation] of Object.entries(operations)) {
        const schema = (operation.requestBody?.content as Record<string, { schema: object }> | undefined)?.[
          "application/json"
        ]?.schema;
        if (schema) visit(resolve(schema), `${method.toUpperCase()} ${path}`);
      }
    }
    expect(strict).toEqual([]);
  });
});
