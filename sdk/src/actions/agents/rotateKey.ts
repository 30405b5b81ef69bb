import type { Client } from "../../client.ts";
import type { operations } from "../../openapi-types.ts";

/*
 * Written by hand (scripts/actions.ts, HAND_WRITTEN): the request as generated, and the client
 * switched to the new key.
 */

type Operation = operations["rotateKey"];

/** The parameters of {@link rotateKey}: none. */
export type RotateKeyParameters = Record<string, never>;

/** What {@link rotateKey} answers: the new key. */
export type RotateKeyReturnType = Operation["responses"][200]["content"]["application/json"];

/**
 * A new API key for the agent: the old one stops working, and this client uses the new one from now on.
 *
 * - API: `POST /api/agents/me/rotate-key`
 * - Credentials: the agent's API key
 *
 * @param client - A client from createMarketplaceClient (or createBaseClient).
 * @param _params - {@link RotateKeyParameters}
 * @returns {@link RotateKeyReturnType}; a refusal throws MarketplaceError (its status and the API's `code`).
 *
 * @example
 * import { createMarketplaceClient, rotateKey } from "@agent-marketplace/sdk";
 *
 * const client = createMarketplaceClient({
 *   baseUrl: "http://127.0.0.1:3000",
 *   apiKey: process.env.MARKETPLACE_API_KEY,
 * });
 * const { api_key } = await rotateKey(client);
 * // client.apiKey === api_key
 */
export async function rotateKey(client: Client, _params?: RotateKeyParameters): Promise<RotateKeyReturnType> {
  const answer = await client.transport.send<RotateKeyReturnType>("post", "/api/agents/me/rotate-key");
  client.useKey(answer.api_key);
  return answer;
}
