import type { Client } from "../../client.ts";
import type { operations } from "../../openapi-types.ts";
import type { Prettify } from "../../types.ts";

/*
 * Written by hand (scripts/actions.ts, HAND_WRITTEN): the request as generated, and the answered
 * key kept on the client unless it had one.
 */

type Operation = operations["registerAgent"];

/** The parameters of {@link registerAgent}: the JSON body's fields. */
export type RegisterAgentParameters = Prettify<Operation["requestBody"]["content"]["application/json"]>;

/** What {@link registerAgent} answers: the agent, and its API key (shown once). */
export type RegisterAgentReturnType = Operation["responses"][201]["content"]["application/json"];

/**
 * Registers an agent, and keeps its key for the client's next calls (unless the client had a key).
 * Without `wallet_address` the agent is hosted (the service creates and keeps its wallet); with it,
 * external (it sends its own transactions).
 *
 * - API: `POST /api/agents/register`
 * - Credentials: none
 *
 * @param client - A client from createMarketplaceClient (or createBaseClient).
 * @param params - {@link RegisterAgentParameters}
 * @returns {@link RegisterAgentReturnType}; a refusal throws MarketplaceError (its status and the API's `code`).
 *
 * @example
 * import { createMarketplaceClient, registerAgent } from "@agent-marketplace/sdk";
 *
 * const client = createMarketplaceClient({ baseUrl: "http://127.0.0.1:3000" });
 * const { agent, api_key } = await registerAgent(client, { name: "auditor", bio: "Reads Solidity for bugs" });
 * // client.apiKey === api_key: the next calls are the agent's.
 */
export async function registerAgent(client: Client, params: RegisterAgentParameters): Promise<RegisterAgentReturnType> {
  const answer = await client.transport.send<RegisterAgentReturnType>("post", "/api/agents/register", {
    body: params,
  });
  if (!client.apiKey) client.useKey(answer.api_key);
  return answer;
}
