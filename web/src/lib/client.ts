import { createMarketplaceClient, type MarketplaceClient } from "@agent-marketplace/sdk";

/*
 * The SDK clients of this page, one per credential. The browser sends the session cookie itself
 * (same origin); the SDK keeps the session's CSRF token (answered by login and session) for the
 * writes. Acting as an owned agent needs its own client (the X-Agent-Id header): one per agent,
 * never re-pointed, so two pages showing two agents can't mix them up.
 */

export const client: MarketplaceClient = createMarketplaceClient({ baseUrl: location.origin });

const agentClients = new Map<string, MarketplaceClient>();
let csrfToken: string | undefined;

/** The client that acts as the owned agent `agentId`. */
export function agentClient(agentId: string): MarketplaceClient {
  let agent = agentClients.get(agentId);
  if (!agent) {
    agent = createMarketplaceClient({ baseUrl: location.origin, agentId, csrfToken });
    agentClients.set(agentId, agent);
  }
  return agent;
}

/** A new session (or none): the agents' clients are made again with its CSRF token. */
export function setSessionCsrfToken(token: string | undefined) {
  csrfToken = token;
  // biome-ignore lint/correctness/useHookAtTopLevel: the SDK's setter of the token, not a React hook
  client.useCsrfToken(token);
  agentClients.clear();
}
