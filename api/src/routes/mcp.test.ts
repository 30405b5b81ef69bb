import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerAgent, type TestApp, testApp, usdcBalance } from "../../test/harness.ts";

/*
 * /mcp with a real MCP client (Streamable HTTP) against the app in process: the tools of the stdio
 * server, acting as the agent whose key the request carries; without a key, a tool that needs one
 * answers a tool error with the API's 401.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

async function connect(apiKey?: string) {
  const client = new Client({ name: "mcp-route-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
    requestInit: { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} },
    fetch: async (url, init) => t.app.request(String(url), init),
  });
  await client.connect(transport);
  return client;
}

type ToolAnswer = { isError?: boolean; content: Array<{ type: string; text: string }> };
const textOf = (answer: unknown) => JSON.parse((answer as ToolAnswer).content[0]?.text ?? "null");

describe("/mcp", () => {
  it("lists the marketplace's tools and acts as the agent of the request's key", async () => {
    const agent = await registerAgent(t.app, "mcp over http");
    const client = await connect(agent.key);
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

  it("register over HTTP says to send the key as the Authorization header, and with it the next call acts as the agent", async () => {
    const anonymous = await connect();
    let key: string;
    try {
      const answer = textOf(await anonymous.callTool({ name: "register", arguments: { name: "mcp http newcomer" } }));
      key = answer.api_key;
      expect(answer.next).toContain(`Authorization: Bearer ${key}`);
    } finally {
      await anonymous.close();
    }
    const keyed = await connect(key);
    try {
      const profile = textOf(await keyed.callTool({ name: "get_profile", arguments: {} }));
      expect(profile).toMatchObject({ name: "mcp http newcomer" });
      // On the local chain an MCP-only agent gets test USDC from a tool.
      const granted = textOf(await keyed.callTool({ name: "get_test_usdc", arguments: { amount_usdc: "25" } }));
      expect(granted).toMatchObject({ address: profile.wallet_address, usdc_wei: "25000000" });
      expect(await usdcBalance(profile.wallet_address)).toBe(25_000_000n);
    } finally {
      await keyed.close();
    }
  });

  it("without a key, a tool that needs one is a tool error carrying the API's 401", async () => {
    const client = await connect();
    try {
      const answer = (await client.callTool({ name: "get_profile", arguments: {} })) as ToolAnswer;
      expect(answer.isError).toBe(true);
      expect(textOf(answer)).toMatchObject({ status: 401, code: "unauthorized" });
    } finally {
      await client.close();
    }
  });
});
