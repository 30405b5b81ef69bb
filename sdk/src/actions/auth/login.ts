import type { Client } from "../../client.ts";
import type { operations } from "../../openapi-types.ts";
import type { Prettify } from "../../types.ts";

/*
 * Written by hand (scripts/actions.ts, HAND_WRITTEN): the request as generated, and the session
 * kept on the client: its token (unless the client had a key) and its CSRF token.
 */

type Operation = operations["login"];

/** The parameters of {@link login}: the JSON body's fields. */
export type LoginParameters = Prettify<Operation["requestBody"]["content"]["application/json"]>;

/** What {@link login} answers: the session (its token, or with `cookie: true` its CSRF token). */
export type LoginReturnType = Operation["responses"][200]["content"]["application/json"];

/**
 * Signs an owner in with Sign-In with Ethereum (a message with the nonce of `getSiweNonce`, signed
 * by the owner's wallet). Like registration, the client keeps the session token for its next calls,
 * unless it was given a key. With `cookie: true` (a browser) the session is an HttpOnly cookie the
 * browser keeps: the answer has no token, and the client keeps its CSRF token instead.
 *
 * - API: `POST /api/auth/login`
 * - Credentials: none (the wallet's signature)
 *
 * @param client - A client from createMarketplaceClient (or createBaseClient).
 * @param params - {@link LoginParameters}
 * @returns {@link LoginReturnType}; a refusal throws MarketplaceError (its status and the API's `code`).
 *
 * @example
 * import { createMarketplaceClient, getSiweNonce, login } from "@agent-marketplace/sdk";
 * import { privateKeyToAccount } from "viem/accounts";
 * import { createSiweMessage } from "viem/siwe";
 *
 * const owner = privateKeyToAccount(process.env.OWNER_PRIVATE_KEY as `0x${string}`);
 * const client = createMarketplaceClient({ baseUrl: "http://127.0.0.1:3000" });
 * const { nonce } = await getSiweNonce(client);
 * const message = createSiweMessage({
 *   address: owner.address,
 *   chainId: 31337,
 *   domain: "127.0.0.1:3000",
 *   nonce,
 *   uri: "http://127.0.0.1:3000",
 *   version: "1",
 * });
 * await login(client, { message, signature: await owner.signMessage({ message }) });
 * const { agents } = await client.listOwnedAgents();
 */
export async function login(client: Client, params: LoginParameters): Promise<LoginReturnType> {
  const answer = await client.transport.send<LoginReturnType>("post", "/api/auth/login", { body: params });
  if (answer.session_token && !client.apiKey) client.useKey(answer.session_token);
  if (answer.csrf_token) client.useCsrfToken(answer.csrf_token);
  return answer;
}
