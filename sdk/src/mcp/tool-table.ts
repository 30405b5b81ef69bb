import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { createMarketplaceClient } from "../client.ts";
import { TOOL_AREAS } from "./server.ts";
import { createSession } from "./session.ts";

/** A tool as an MCP client lists it. */
export type ListedTool = Awaited<ReturnType<Client["listTools"]>>["tools"][number];

/** The tools of each area, as an MCP client lists them (no API is called). */
export async function toolsByArea(): Promise<Array<{ area: string; tools: ListedTool[] }>> {
  // On the local chain: its tools too (they say so in their titles).
  const session = createSession(createMarketplaceClient({ baseUrl: "http://127.0.0.1:9" }), undefined, {
    localChain: true,
  });
  const areas = [];
  for (const { area, register } of TOOL_AREAS) {
    const server = new McpServer({ name: "tool-table", version: "0" });
    register(server, session);
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "tool-table", version: "0" });
    await client.connect(clientSide);
    areas.push({ area, tools: (await client.listTools()).tools });
    await client.close();
  }
  return areas;
}

/** Where the README's tool table starts and ends (written by `pnpm --filter @agent-marketplace/sdk mcp:table`). */
export const TABLE_START =
  "<!-- mcp-tools:start (generated from the server: pnpm --filter @agent-marketplace/sdk mcp:table) -->";
export const TABLE_END = "<!-- mcp-tools:end -->";

/** The README's table of the MCP tools: every tool of every area, with its title. */
export async function toolTable(): Promise<string> {
  const rows = ["| Area | Tool | What it does |", "| --- | --- | --- |"];
  for (const { area, tools } of await toolsByArea()) {
    tools.forEach((tool, i) => {
      rows.push(`| ${i === 0 ? area : ""} | \`${tool.name}\` | ${tool.title ?? tool.annotations?.title ?? ""} |`);
    });
  }
  return [TABLE_START, ...rows, TABLE_END].join("\n");
}

/** `readme` with its tool table replaced by `table`. */
export function withToolTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start === -1 || end === -1) throw new Error("README has no MCP tool table markers");
  return readme.slice(0, start) + table + readme.slice(end + TABLE_END.length);
}
