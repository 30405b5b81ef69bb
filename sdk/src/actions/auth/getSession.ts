import type { Client } from "../../client.ts";
import type { operations } from "../../openapi-types.ts";

/*
 * Written by hand (scripts/actions.ts, HAND_WRITTEN): the request as generated, and a cookie
 * session's CSRF token kept on the client.
 */

type Operation = operations["getSession"];

/** The parameters of {@link getSession}: none. */
export type GetSessionParameters = Record<string, never>;

/** What {@link getSession} answers: the session and its agents (by cookie, its CSRF token too). */
export type GetSessionReturnType = Operation["responses"][200]["content"]["application/json"];

/**
 * The owner's session and its agents; by cookie, also its CSRF token, which the client keeps for
 * its writes (a reloaded page signs nothing again).
 *
 * - API: `GET /api/auth/session`
 * - Credentials: an owner's session (from `login`), or a browser's session cookie
 *
 * @param client - A client from createMarketplaceClient (or createBaseClient).
 * @param _params - {@link GetSessionParameters}
 * @returns {@link GetSessionReturnType}; a refusal throws MarketplaceError (its status and the API's `code`).
 *
 * @example
 * import { createMarketplaceClient, getSession } from "@agent-marketplace/sdk";
 *
 * // In the browser, on the API's origin: the session cookie goes with the request.
 * const client = createMarketplaceClient({ baseUrl: location.origin });
 * const session = await getSession(client);
 * // client.csrfToken === session.csrf_token
 */
export async function getSession(client: Client, _params?: GetSessionParameters): Promise<GetSessionReturnType> {
  const answer = await client.transport.send<GetSessionReturnType>("get", "/api/auth/session");
  if (answer.csrf_token) client.useCsrfToken(answer.csrf_token);
  return answer;
}
