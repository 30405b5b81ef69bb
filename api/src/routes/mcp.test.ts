import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { sql } from "drizzle-orm";
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { testMarket } from "../../test/escrow.ts";
import {
  createListing,
  registerAgent,
  registerHosted,
  type TestApp,
  testApp,
  usdcBalance,
} from "../../test/harness.ts";
import { clockAtChain } from "../../test/x402.ts";

/*
 * /mcp with a real MCP client (Streamable HTTP) against the app in process: the tools of the stdio
 * server, acting as the agent whose key the request carries, or the key its MCP session keeps
 * (the one `register` answered); without a key, a tool that needs one answers a tool error with
 * the API's 401. Sessions are ids nobody can guess, shared by every API process, ended on DELETE.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

async function connect(apiKey?: string, app: TestApp["app"] = t.app, sessionId?: string) {
  const client = new Client({ name: "mcp-route-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
    requestInit: { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} },
    fetch: async (url, init) => app.request(String(url), init),
    sessionId,
  });
  await client.connect(transport);
  return { client, transport };
}

/** A raw JSON-RPC request to /mcp, as an MCP client sends it. */
function rpc(body: object, headers: Record<string, string> = {}, app: TestApp["app"] = t.app) {
  return app.request("/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

type ToolAnswer = { isError?: boolean; content: Array<{ type: string; text: string }> };
const textOf = (answer: unknown) => JSON.parse((answer as ToolAnswer).content[0]?.text ?? "null");

describe("/mcp", () => {
  it("lists the marketplace's tools and acts as the agent of the request's key", async () => {
    const agent = await registerAgent(t.app, "mcp over http");
    const { client } = await connect(agent.key);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(["register", "get_profile", "browse_listings", "buy_listing"]));
      expect(names.length).toBeGreaterThan(30);
      const profile = await client.callTool({ name: "get_profile", arguments: {} });
      expect((profile as ToolAnswer).isError).toBeFalsy();
      expect(textOf(profile)).toMatchObject({ id: agent.id, name: "mcp over http" });
    } finally {
      await client.close();
    }
  });

  it("x402_payment: a FIXED listing's x402 URL on this origin and what it is paid in", async () => {
    const agent = await registerAgent(t.app, "mcp x402 reader");
    const listing = await createListing(t.app, agent, { price_wei: "3000000" });
    const { client } = await connect(agent.key);
    try {
      const answer = await client.callTool({ name: "x402_payment", arguments: { listing_id: listing.id } });
      expect((answer as ToolAnswer).isError).toBeFalsy();
      expect(textOf(answer)).toMatchObject({
        listing_id: listing.id,
        url: `http://localhost/api/listings/${listing.id}/x402`,
        methods: ["GET", "POST"],
        network: `eip155:${t.config.chainId}`,
        asset: t.services.escrow.usdc,
        pay_to: t.services.escrow.escrow,
        price_wei: "3000000",
        spend_controls: { allowedAssets: [{ network: `eip155:${t.config.chainId}`, asset: t.services.escrow.usdc }] },
      });
      // The URL answers the 402 a stock x402 client pays.
      expect((await t.app.request(textOf(answer).url)).status).toBe(402);
    } finally {
      await client.close();
    }
  });

  it("sign_x402_payment: a hosted agent pays a listing's x402 URL; the payment funds its escrow with the agent as buyer", async () => {
    const clock = await clockAtChain(testMarket());
    const seller = await registerAgent(t.app, "mcp x402 seller");
    const listing = await createListing(t.app, seller, { price_wei: "2000000" });
    const buyer = await registerHosted(t.app, "mcp x402 hosted buyer", 3_000_000n);
    const { client } = await connect(buyer.key);
    try {
      const { url } = textOf(await client.callTool({ name: "x402_payment", arguments: { listing_id: listing.id } }));
      const required = (await t.app.request(url)).headers.get("payment-required") as string;
      const answer = await client.callTool({ name: "sign_x402_payment", arguments: { payment_required: required } });
      expect((answer as ToolAnswer).isError, JSON.stringify(answer)).toBeFalsy();
      const signed = textOf(answer);
      expect(signed).toMatchObject({
        header: "PAYMENT-SIGNATURE",
        amount_wei: "2000000",
        payer: getAddress(buyer.wallet),
      });
      const paid = await t.app.request(url, { headers: { "PAYMENT-SIGNATURE": signed.payment_signature } });
      expect(paid.status, await paid.clone().text()).toBe(201);
      expect(await paid.json()).toMatchObject({ state: "FUNDED", buyer_agent_id: buyer.id });
      // Not a PAYMENT-REQUIRED: a tool error with the API's 400, nothing signed.
      const refused = await client.callTool({ name: "sign_x402_payment", arguments: { payment_required: "nonsense" } });
      expect((refused as ToolAnswer).isError).toBe(true);
      expect(textOf(refused)).toMatchObject({ status: 400 });
    } finally {
      await client.close();
      clock.restore();
    }
  });

  it("register over HTTP: the session goes on as the new agent, without a header; another session is told the header", async () => {
    const { client: anonymous, transport } = await connect();
    try {
      expect(transport.sessionId).toMatch(/^mcp_[A-Za-z0-9_-]{43}$/);
      const answer = textOf(await anonymous.callTool({ name: "register", arguments: { name: "mcp http newcomer" } }));
      const key: string = answer.api_key;
      expect(answer.next).toContain(`Authorization: Bearer ${key}`);
      expect(answer.next).toContain("This MCP session now acts as this agent");
      // The same session, no header added: it acts as the agent it registered.
      const profile = textOf(await anonymous.callTool({ name: "get_profile", arguments: {} }));
      expect(profile).toMatchObject({ id: answer.agent.id, name: "mcp http newcomer" });
      // On the local chain an MCP-only agent gets test USDC from a tool.
      const granted = textOf(await anonymous.callTool({ name: "get_test_usdc", arguments: { amount_usdc: "25" } }));
      expect(granted).toMatchObject({ address: profile.wallet_address, usdc_wei: "25000000" });
      expect(await usdcBalance(profile.wallet_address)).toBe(25_000_000n);
      // A second registration in the same session is refused: it already acts as an agent.
      const again = (await anonymous.callTool({ name: "register", arguments: { name: "twice" } })) as ToolAnswer;
      expect(again.isError).toBe(true);
      // Another session, with the header the answer named, acts as the agent too.
      const { client: keyed } = await connect(key);
      try {
        expect(textOf(await keyed.callTool({ name: "get_profile", arguments: {} }))).toMatchObject({
          id: answer.agent.id,
        });
      } finally {
        await keyed.close();
      }
    } finally {
      await anonymous.close();
    }
  });

  it("register called 20 times at once in one new session makes one agent; the others are refused", async () => {
    const { transport } = await connect();
    const sessionId = transport.sessionId as string;
    const name = `mcp concurrent ${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const { client } = await connect(undefined, t.app, sessionId);
        try {
          return (await client.callTool({ name: "register", arguments: { name } })) as ToolAnswer;
        } finally {
          await client.close();
        }
      }),
    );
    const registered = answers.filter((answer) => !answer.isError);
    expect(registered).toHaveLength(1);
    for (const refused of answers.filter((answer) => answer.isError)) {
      expect(textOf(refused)).toMatchObject({ code: "already_registered" });
    }
    const { rows } = await t.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM app.agents WHERE name = ${name}`,
    );
    expect(rows[0]?.n).toBe(1);
    // The session acts as that one agent.
    const { client } = await connect(undefined, t.app, sessionId);
    try {
      const profile = textOf(await client.callTool({ name: "get_profile", arguments: {} }));
      expect(profile).toMatchObject({ id: textOf(registered[0]).agent.id, name });
    } finally {
      await client.close();
    }
  });

  it("a registration that fails gives the session back: it registers on the next try", async () => {
    const { client } = await connect();
    try {
      const refused = (await client.callTool({
        name: "register",
        arguments: { name: "mcp reserved", wallet_address: inject("stack").deployment.contracts.AgentEscrow.address },
      })) as ToolAnswer;
      expect(refused.isError).toBe(true);
      const answer = (await client.callTool({ name: "register", arguments: { name: "mcp second try" } })) as ToolAnswer;
      expect(answer.isError).toBeFalsy();
      expect(textOf(await client.callTool({ name: "get_profile", arguments: {} }))).toMatchObject({
        name: "mcp second try",
      });
    } finally {
      await client.close();
    }
  });

  it("a session is served by any API process, and not by one holding another master key", async () => {
    const { client, transport } = await connect();
    const other = await testApp({ masterKey: t.config.masterKey });
    try {
      const answer = textOf(await client.callTool({ name: "register", arguments: { name: "mcp two processes" } }));
      const { client: resumed } = await connect(undefined, other.app, transport.sessionId);
      try {
        const profile = textOf(await resumed.callTool({ name: "get_profile", arguments: {} }));
        expect(profile).toMatchObject({ id: answer.agent.id });
      } finally {
        await resumed.close();
      }
      // Another deployment's process (another master key) cannot open the key: not found, not a 500.
      const foreign = await testApp();
      try {
        const call = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
        const response = await rpc(call, { "mcp-session-id": transport.sessionId as string }, foreign.app);
        expect(response.status).toBe(404);
      } finally {
        await foreign.close();
      }
    } finally {
      await client.close();
      await other.close();
    }
  });

  it("an unknown, malformed or ended session is 404 and acts as nobody", async () => {
    const { client, transport } = await connect();
    const sessionId = transport.sessionId as string;
    const answer = textOf(await client.callTool({ name: "register", arguments: { name: "mcp ended session" } }));
    expect(answer.api_key).toBeDefined();
    const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "get_profile", arguments: {} } };
    for (const forged of [`mcp_${"A".repeat(43)}`, "not-a-session", `${sessionId}x`, sessionId.toLowerCase()]) {
      const response = await rpc(call, { "mcp-session-id": forged });
      expect(response.status, forged).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: -32001 } });
    }
    // The client ends its session: its id no longer works.
    await transport.terminateSession();
    const after = await rpc(call, { "mcp-session-id": sessionId });
    expect(after.status).toBe(404);
    // The key the session kept is in no other session: a new one without a header acts as nobody.
    const { client: fresh } = await connect();
    try {
      const refused = (await fresh.callTool({ name: "get_profile", arguments: {} })) as ToolAnswer;
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatchObject({ status: 401 });
    } finally {
      await fresh.close();
      await client.close();
    }
  });

  it("keeps the session's key sealed: the row holds neither the session id nor the key", async () => {
    const { client, transport } = await connect();
    try {
      const answer = textOf(await client.callTool({ name: "register", arguments: { name: "mcp sealed" } }));
      const rows = await t.db.execute<{ id_hash: string; sealed_key: string }>(
        sql`select id_hash, sealed_key from app.mcp_sessions`,
      );
      const text = JSON.stringify(rows.rows);
      expect(text).not.toContain(answer.api_key);
      expect(text).not.toContain(transport.sessionId as string);
      expect(rows.rows.some((row) => row.sealed_key?.startsWith("v1:"))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("without a key, a tool that needs one is a tool error carrying the API's 401", async () => {
    const { client } = await connect();
    try {
      const answer = (await client.callTool({ name: "get_profile", arguments: {} })) as ToolAnswer;
      expect(answer.isError).toBe(true);
      expect(textOf(answer)).toMatchObject({ status: 401, code: "unauthorized" });
    } finally {
      await client.close();
    }
  });
});
