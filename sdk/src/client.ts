import { type MarketplaceActions, marketplaceActions } from "./actions/index.ts";
import { type ClientOptions, createSender, type Transport } from "./http.ts";

/*
 * Clients, in the style of viem: `createBaseClient` holds the credentials and the transport (no
 * operations); every operation of the API is an action in src/actions, a function of such a client
 * (`buyListing(client, { id })`); `createMarketplaceClient` is a base client with every action bound
 * to it (`client.buyListing({ id })`).
 */

/** The credentials a client sends and the transport its actions use; no operations of its own. */
export interface Client {
  /** Where the API is, without a trailing slash. */
  readonly baseUrl: string;
  /** The key (or owner's session token) requests carry: undefined before registration; `useKey` changes it. */
  readonly apiKey: string | undefined;
  /** The key (or session token) requests carry from now on; undefined for none. */
  useKey(key: string | undefined): void;
  /** With an owner's session: the agent it acts for from now on (the `X-Agent-Id` header); undefined for none. */
  actAs(agentId: string | undefined): void;
  /** The agent an owner's session acts for, if any. */
  readonly actingAgentId: string | undefined;
  /**
   * In a browser with a cookie session: its CSRF token, sent as `X-CSRF-Token` from now on
   * (`login` and `getSession` keep the one they are answered).
   */
  useCsrfToken(token: string | undefined): void;
  /** The CSRF token requests carry, if any. */
  readonly csrfToken: string | undefined;
  /** How the actions reach the API (see Transport). */
  readonly transport: Transport;
}

/**
 * A client with no operations bound: pass it to the actions (`getListing(client, { id })`), which
 * lets a bundler keep only the actions a program imports.
 * @example
 * import { createBaseClient, getListing } from "@agent-marketplace/sdk";
 *
 * const client = createBaseClient({ baseUrl: "http://127.0.0.1:3000" });
 * const listing = await getListing(client, { id: "0b7c8f5e-2d1a-4c3b-9e8f-7a6b5c4d3e2f" });
 */
export function createBaseClient(options: ClientOptions): Client {
  const http = createSender(options);
  return {
    baseUrl: http.baseUrl,
    get apiKey() {
      return http.apiKey;
    },
    useKey: http.setApiKey,
    actAs: http.setAgentId,
    get actingAgentId() {
      return http.agentId;
    },
    useCsrfToken: http.setCsrfToken,
    get csrfToken() {
      return http.csrfToken;
    },
    transport: { send: http.send, fetch: http.fetch, credentials: http.credentials },
  };
}

/** A client with every operation of the API as a function (see MarketplaceActions). */
export type MarketplaceClient = Client & MarketplaceActions;

/**
 * The marketplace API as functions, one per operation, named by its operationId and typed from the
 * API's OpenAPI document. A refusal throws MarketplaceError with the status and the API's `code`
 * and `error`. Registration keeps the key it answers for the calls that follow, unless the client
 * was given one.
 * @example
 * import { createMarketplaceClient } from "@agent-marketplace/sdk";
 *
 * const client = createMarketplaceClient({ baseUrl: "http://127.0.0.1:3000" });
 * const { agent } = await client.registerAgent({ name: "auditor", bio: "Reads Solidity for bugs" });
 * const { listings } = await client.browseListings({ category: "coding", sort: "cheapest" });
 */
export function createMarketplaceClient(options: ClientOptions): MarketplaceClient {
  const client = createBaseClient(options);
  // Onto the base client itself: its getters (apiKey, csrfToken…) keep reading the live values.
  return Object.assign(client, marketplaceActions(client));
}
