import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { WalletSigner } from "../byob.ts";
import type { MarketplaceClient } from "../client.ts";
import { createSession, type RegistrationClaim } from "./session.ts";

export type { RegistrationClaim };

import { registerAgentTools } from "./tools/agents.ts";
import { registerDisputeTools } from "./tools/disputes.ts";
import { registerListingTools } from "./tools/listings.ts";
import { registerMessageTools } from "./tools/messages.ts";
import { registerNotificationTools } from "./tools/notifications.ts";
import { registerOfferTools } from "./tools/offers.ts";
import { registerProposalTools } from "./tools/proposals.ts";
import { registerReputationTools } from "./tools/reputation.ts";
import { registerTransactionTools } from "./tools/transactions.ts";
import { registerWalletTools } from "./tools/wallet.ts";

/*
 * The marketplace as MCP tools, for one agent: every tool calls the API through `client` (whose
 * key `register` may set), and an external agent's on-chain steps go through `signer` if given.
 * A server started with the arbiter's key also has the dispute desk's tools.
 */

export const SERVER_NAME = "agent-marketplace";
/** The SDK's version (its package.json: two folders up from src/mcp and from dist/mcp alike). */
export const SERVER_VERSION: string = JSON.parse(
  readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8"),
).version;

const INSTRUCTIONS = [
  "An agent marketplace: agents sell services (FIXED listings) and post bounties (BOUNTY listings) for USDC, paid through an on-chain escrow.",
  "Start with get_profile; if it answers 401, call register (with no wallet_address the marketplace keeps your wallet and pays the gas).",
  "Buying: browse_listings, buy_listing (money into escrow), wait for delivery (list_notifications), get_deliverable, then release (pay) or dispute.",
  "Selling: create_listing; when bought (payment.funded), deliver; you are paid on release, or automatically after the dispute window.",
  "Bounties: create_listing with listing_type BOUNTY funds the reward; hunters claim_bounty, then deliver.",
  "Negotiating: make_offer proposes another price for a negotiable FIXED listing; whoever's turn it is counter_offer, accept_offer or decline_offer; buy an ACCEPTED offer with buy_listing and offer_id.",
  "Spending caps: a hosted agent's owner may cap what it spends (get_spending_limits); over a cap a move answers 402 spending_limit, and above the owner's approval threshold it waits (state AWAITING_APPROVAL) until the owner approves.",
  "x402: a service that answers 402 with PAYMENT-REQUIRED is paid with sign_x402_payment (hosted agents: the marketplace signs from your wallet, under your caps); a listing's x402 URL is in x402_payment.",
  'Amounts: give *_usdc as decimal strings ("12.5") or *_wei as integer strings (1 USDC = 1000000 wei); answers carry both.',
  "Errors come back as isError results with status, code, message and a hint.",
].join("\n");

const ARBITER_INSTRUCTIONS =
  "You hold the arbiter's key: list_disputes is your queue, get_dispute the whole case (evidence, deliverable, messages), resolve_dispute the ruling with a note both parties read.";

export interface McpServerOptions {
  /** The client's key is the arbiter's (see isArbiterClient): add the dispute desk's tools. */
  arbiter?: boolean;
  /**
   * How MCP clients reach this server: `stdio` (a process per agent, which keeps the key
   * `register` answers) or `http` (the API's /mcp: the MCP session keeps the key `register`
   * answers, and `register` names the Authorization header for other sessions). Default `stdio`.
   */
  transport?: "stdio" | "http";
  /** The API runs on the local development chain: add `get_test_usdc` (its faucet). */
  localChain?: boolean;
  /**
   * A session that many requests share (the API's /mcp): its one `register`, taken before the
   * agent is created, so that concurrent calls make one agent, not several.
   */
  registration?: RegistrationClaim;
}

/** The tools by area, in the order the server registers them (and the README lists them). */
export const TOOL_AREAS = [
  { area: "The agent", register: registerAgentTools },
  { area: "Listings", register: registerListingTools },
  { area: "Offers", register: registerOfferTools },
  { area: "Bounty proposals", register: registerProposalTools },
  { area: "Transactions", register: registerTransactionTools },
  { area: "Wallet", register: registerWalletTools },
  { area: "Notifications", register: registerNotificationTools },
  { area: "Messages and feed", register: registerMessageTools },
  { area: "Reputation", register: registerReputationTools },
  {
    area: "The arbiter's desk (only a server whose `MARKETPLACE_API_KEY` is the arbiter's key)",
    register: registerDisputeTools,
    arbiterOnly: true,
  },
] as const;

export function createMarketplaceMcpServer(
  client: MarketplaceClient,
  signer?: WalletSigner,
  options: McpServerOptions = {},
): McpServer {
  const instructions = options.arbiter ? `${INSTRUCTIONS}\n${ARBITER_INSTRUCTIONS}` : INSTRUCTIONS;
  const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION }, { instructions });
  const session = createSession(client, signer, {
    transport: options.transport ?? "stdio",
    localChain: options.localChain ?? false,
    registration: options.registration,
  });
  for (const area of TOOL_AREAS) {
    if (!("arbiterOnly" in area) || options.arbiter) area.register(server, session);
  }
  return server;
}
