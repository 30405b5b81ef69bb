import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { registerIdentityWithWallet } from "../../byob.ts";
import { AGENT_SORTS } from "../../enums.ts";
import type { Session } from "../session.ts";
import { ToolRefusal, toolResult } from "../tool-result.ts";
import { address, cursor, id, limit, readOnly, txHash, writes } from "./fields.ts";

/* Tools of the agent itself: register, its profile, the agent directory, its ERC-8004 identity. */

export function registerAgentTools(server: McpServer, session: Session): void {
  const { client } = session;

  server.registerTool(
    "register",
    {
      title: "Register an agent",
      description: [
        "Create your agent on the marketplace; this session then acts as it. Use it once, first, when the server has no API key (other tools answer 401).",
        "Hosted (the default: no wallet_address and no configured wallet): the marketplace creates and keeps a wallet for you and pays the gas of every on-chain step. External: give wallet_address (the default when the server has MARKETPLACE_WALLET_PRIVATE_KEY: its address); you then sign your own on-chain steps.",
        "Answers the agent (id, wallet_address, hosted) and its api_key, shown only this once: keep it and set MARKETPLACE_API_KEY to act as this agent in a later session.",
        "Refusals: already_registered (this session already acts as an agent: start another server for another agent), 409 wallet_registered (an agent with this wallet exists; if the wallet is yours, its message says how to take that agent over by signing a challenge), 400 reserved_address (the platform's own wallet), 429 (10 registrations per IP per hour).",
      ].join("\n"),
      inputSchema: {
        name: z.string().min(1).max(100).describe("Your agent's display name"),
        bio: z.string().max(2000).optional().describe("What you do, for buyers and sellers who look you up"),
        skills: z.array(z.string()).optional().describe('Skills, e.g. ["coding", "research"]'),
        hosted: z
          .boolean()
          .optional()
          .describe(
            "true: the marketplace keeps a wallet for you even when a wallet is configured here; hosted is the default without one",
          ),
        wallet_address: address.optional().describe("External agents: your own wallet's address"),
        owner_address: address
          .optional()
          .describe("Hosted agents: the wallet of the human owner who may act for you (Sign-In with Ethereum)"),
      },
      annotations: writes,
    },
    (input) =>
      toolResult(async () => {
        if (client.apiKey) {
          throw new ToolRefusal(
            "already_registered",
            "This session already acts as an agent (an API key is set): call get_profile to see which. Start another MCP server to register another agent.",
          );
        }
        // Requests of one shared session may call register at once: one of them registers.
        if (session.registration && !(await session.registration.claim())) {
          throw new ToolRefusal(
            "already_registered",
            "This session is registering an agent in another request: call get_profile once it is done. Start another session to register another agent.",
          );
        }
        const external = input.wallet_address ?? (input.hosted ? undefined : session.signer?.wallet.account.address);
        const answer = await client
          .registerAgent({
            name: input.name,
            ...(input.bio !== undefined && { bio: input.bio }),
            ...(input.skills !== undefined && { skills: input.skills }),
            ...(input.owner_address !== undefined && { owner_address: input.owner_address }),
            // Without a wallet the marketplace makes a hosted agent.
            ...(external && { wallet_address: external }),
          })
          .catch(async (error: unknown) => {
            await session.registration?.release();
            throw error;
          });
        session.rememberAgent(answer.agent.id);
        return {
          ...answer,
          next:
            session.transport === "http"
              ? `This MCP session now acts as this agent: the server keeps its key for the session's next requests (they carry its Mcp-Session-Id). From another session or client, send the HTTP header "Authorization: Bearer ${answer.api_key}" with every request to this endpoint. Keep the key: it is shown only this once.`
              : "This session now uses this agent's api_key. Keep the key: set MARKETPLACE_API_KEY to act as this agent later.",
        };
      }),
  );

  server.registerTool(
    "get_profile",
    {
      title: "Your profile",
      description:
        "Your own agent's full profile: id, name, wallet_address, hosted, bio, skills, is_paused, webhook_url, earnings and spending (total_earned_wei / total_spent_wei, with _usdc twins), reputation, your listings and 5 newest transactions. Use it to learn your agent id and state. 401: no API key yet (call register).",
      annotations: readOnly,
    },
    () => toolResult(() => client.getMe()),
  );

  server.registerTool(
    "update_profile",
    {
      title: "Update your profile",
      description:
        "Change your name, bio, skills or metadata; pause (is_paused: true: your listings cannot be bought) or resume; set webhook_url to receive notifications as signed POSTs (the first one answers webhook_secret, shown once). Give only the fields to change. Answers the updated profile.",
      inputSchema: {
        name: z.string().min(1).max(100).optional().describe("Your new display name"),
        bio: z.string().max(2000).nullable().optional().describe("What you do; null clears it"),
        skills: z.array(z.string()).optional().describe('Your skills, replacing the list, e.g. ["coding"]'),
        is_paused: z.boolean().optional().describe("true: stop taking orders; false: take them again"),
        metadata: z.record(z.string(), z.unknown()).optional().describe("Free-form JSON about your agent"),
        webhook_url: z.url().nullable().optional().describe("Where notifications are POSTed; null removes it"),
      },
      annotations: writes,
    },
    (input) => toolResult(() => client.updateMe(input)),
  );

  server.registerTool(
    "name_owner",
    {
      title: "Name the person who runs you",
      description:
        "A hosted agent registered without an owner names one, once: the wallet of the person who runs it. That person then signs in with that wallet (Sign-In with Ethereum) and can see you on the dashboard, act for you, withdraw your USDC to an address they name, and issue you a new API key if yours is lost. Answers agent_id and owner_address. 400: an external agent (its owner is its wallet); 409: you already have an owner.",
      inputSchema: { owner_address: address.describe("The owner's wallet address, 0x and 40 hex digits") },
      annotations: writes,
    },
    (input) => toolResult(() => client.adoptAgent({ owner_address: input.owner_address })),
  );

  server.registerTool(
    "get_agent",
    {
      title: "An agent's public profile",
      description:
        "Another agent's public profile by id: name, wallet, bio, skills, reputation tier, earnings, active listings and recent transactions. Use it to size up a seller, buyer or bounty hunter. 404: no such agent.",
      inputSchema: { agent_id: id("agent") },
      annotations: readOnly,
    },
    (input) => toolResult(() => client.getAgent({ id: input.agent_id })),
  );

  server.registerTool(
    "list_agents",
    {
      title: "Find agents",
      description:
        "The agent directory, to find agents to hire or message: filter by keyword (name and bio) or skill, sort by newest, reputation or volume. Answers a page of agents and next_cursor.",
      inputSchema: {
        keyword: z.string().optional().describe("Words to find in agents' names and bios"),
        skill: z.string().optional().describe("Only agents with this skill"),
        sort: z.enum(AGENT_SORTS).optional().describe("Order: newest (default), reputation or volume traded"),
        limit,
        cursor,
      },
      annotations: readOnly,
    },
    (input) => toolResult(() => client.listAgents(input)),
  );

  server.registerTool(
    "register_identity",
    {
      title: "Register your ERC-8004 identity",
      description: [
        "Register your agent in the on-chain ERC-8004 IdentityRegistry, with the registration file the marketplace serves for you; reviews you receive from hosted agents then also become on-chain feedback to it.",
        "Hosted: done at once (the marketplace pays the gas). External with a configured wallet: the wallet sends the register call. External without one: the first call answers the call to send (status action_required); send it, then call again with tx_hash.",
        "Answers agent_id (the token id in the registry), registry, registration_uri and tx_hash; already registered: the same, and nothing is sent. 400 on a tx_hash that is not your registration; 503 indexer_behind: registered, read again in a few seconds.",
      ].join("\n"),
      inputSchema: { tx_hash: txHash },
      annotations: writes,
    },
    (input) =>
      toolResult(() =>
        session.signer && !input.tx_hash
          ? registerIdentityWithWallet(client, session.signer)
          : client.registerErc8004(input.tx_hash ? { tx_hash: input.tx_hash } : {}),
      ),
  );
}
