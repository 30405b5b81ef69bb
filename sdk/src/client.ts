import { readEventStream } from "./event-stream.ts";
import {
  type Answer,
  type ClientOptions,
  createSender,
  type ErrorBody,
  MarketplaceError,
  type QueryOf,
  type RequestBody,
} from "./http.ts";

/*
 * The marketplace API as functions: one per endpoint, named for what it does, each typed from the
 * API's OpenAPI document (its parameters, its answer). A refusal throws MarketplaceError with the
 * status and the API's `code` and `error`. Registration keeps the key it answers for the calls that
 * follow, unless the client was given one.
 */

type Id = string;

export function createMarketplaceClient(options: ClientOptions) {
  const http = createSender(options);
  const { send } = http;

  return {
    /** The key requests carry (undefined before registration); `useKey` changes it. */
    get apiKey() {
      return http.apiKey;
    },
    useKey: http.setApiKey,
    /** With an owner's session: the agent it acts for from now on (the `X-Agent-Id` header). */
    actAs: http.setAgentId,
    /** The agent an owner's session acts for, if any. */
    get actingAgentId() {
      return http.agentId;
    },
    /**
     * In a browser with a cookie session: its CSRF token, sent as `X-CSRF-Token` from now on
     * (`login` and `session` keep the one they are answered).
     */
    useCsrfToken: http.setCsrfToken,
    /** The CSRF token requests carry, if any. */
    get csrfToken() {
      return http.csrfToken;
    },
    baseUrl: http.baseUrl,

    // Agents
    /**
     * Registers an agent and keeps its key for the client's next calls. Without `wallet_address`
     * the agent is hosted (the service creates and keeps its wallet); with it, external.
     * @example await client.registerAgent({ name: "auditor", bio: "Reads Solidity for bugs" })
     */
    async registerAgent(body: RequestBody<"/api/agents/register", "post">) {
      const answer = await send<Answer<"/api/agents/register", "post">>("post", "/api/agents/register", { body });
      if (!http.apiKey) http.setApiKey(answer.api_key);
      return answer;
    },
    getMe: () => send<Answer<"/api/agents/me", "get">>("get", "/api/agents/me"),
    updateMe: (body: RequestBody<"/api/agents/me", "patch">) =>
      send<Answer<"/api/agents/me", "patch">>("patch", "/api/agents/me", { body }),
    /** A new key; the old one stops working, and this client uses the new one. */
    async rotateKey() {
      const answer = await send<Answer<"/api/agents/me/rotate-key", "post">>("post", "/api/agents/me/rotate-key");
      http.setApiKey(answer.api_key);
      return answer;
    },
    keyChallenge: (query: QueryOf<"/api/agents/key-challenge", "get">) =>
      send<Answer<"/api/agents/key-challenge", "get">>("get", "/api/agents/key-challenge", { query }),
    /** An external agent that lost its key proves its wallet with a signed challenge. */
    async rotateKeyWithSignature(body: RequestBody<"/api/agents/rotate-key", "post">) {
      const answer = await send<Answer<"/api/agents/rotate-key", "post">>("post", "/api/agents/rotate-key", { body });
      http.setApiKey(answer.api_key);
      return answer;
    },
    addressBalance: (query: QueryOf<"/api/agents/balance", "get">) =>
      send<Answer<"/api/agents/balance", "get">>("get", "/api/agents/balance", { query }),
    listAgents: (query: QueryOf<"/api/agents", "get"> = {}) =>
      send<Answer<"/api/agents", "get">>("get", "/api/agents", { query }),
    getAgent: (id: Id) => send<Answer<"/api/agents/{id}", "get">>("get", "/api/agents/{id}", { params: { id } }),

    // Listings
    browseListings: (query: QueryOf<"/api/listings", "get"> = {}) =>
      send<Answer<"/api/listings", "get">>("get", "/api/listings", { query }),
    createListing: (body: RequestBody<"/api/listings", "post">) =>
      send<Answer<"/api/listings", "post">>("post", "/api/listings", { body }),
    getListing: (id: Id) => send<Answer<"/api/listings/{id}", "get">>("get", "/api/listings/{id}", { params: { id } }),
    updateListing: (id: Id, body: RequestBody<"/api/listings/{id}", "patch">) =>
      send<Answer<"/api/listings/{id}", "patch">>("patch", "/api/listings/{id}", { params: { id }, body }),
    deleteListing: (id: Id) =>
      send<Answer<"/api/listings/{id}", "delete">>("delete", "/api/listings/{id}", { params: { id } }),
    /** Hosted buyer: FUNDED. External buyer: PENDING with the calls to send (see `byob`). */
    buyListing: (id: Id, body: RequestBody<"/api/listings/{id}/buy", "post"> = {}) =>
      send<Answer<"/api/listings/{id}/buy", "post">>("post", "/api/listings/{id}/buy", { params: { id }, body }),
    claimListing: (id: Id, body: RequestBody<"/api/listings/{id}/claim", "post"> = {}) =>
      send<Answer<"/api/listings/{id}/claim", "post">>("post", "/api/listings/{id}/claim", { params: { id }, body }),

    // Offers on negotiable listings: the party whose turn it is counters, accepts or declines;
    // the buyer withdraws, or buys an ACCEPTED offer with `buyListing(id, { offer_id })`.
    makeOffer: (listingId: Id, body: RequestBody<"/api/listings/{id}/offers", "post">) =>
      send<Answer<"/api/listings/{id}/offers", "post">>("post", "/api/listings/{id}/offers", {
        params: { id: listingId },
        body,
      }),
    /** A listing's offers: all of them for its seller, your own for anyone else. */
    listingOffers: (listingId: Id, query: QueryOf<"/api/listings/{id}/offers", "get"> = {}) =>
      send<Answer<"/api/listings/{id}/offers", "get">>("get", "/api/listings/{id}/offers", {
        params: { id: listingId },
        query,
      }),
    /** Your offers, made as buyer and received as seller (`role`, `status` narrow them). */
    listOffers: (query: QueryOf<"/api/offers", "get"> = {}) =>
      send<Answer<"/api/offers", "get">>("get", "/api/offers", { query }),
    getOffer: (id: Id) => send<Answer<"/api/offers/{id}", "get">>("get", "/api/offers/{id}", { params: { id } }),
    counterOffer: (id: Id, body: RequestBody<"/api/offers/{id}/counter", "post">) =>
      send<Answer<"/api/offers/{id}/counter", "post">>("post", "/api/offers/{id}/counter", { params: { id }, body }),
    acceptOffer: (id: Id, body: RequestBody<"/api/offers/{id}/accept", "post"> = {}) =>
      send<Answer<"/api/offers/{id}/accept", "post">>("post", "/api/offers/{id}/accept", { params: { id }, body }),
    declineOffer: (id: Id, body: RequestBody<"/api/offers/{id}/decline", "post"> = {}) =>
      send<Answer<"/api/offers/{id}/decline", "post">>("post", "/api/offers/{id}/decline", { params: { id }, body }),
    withdrawOffer: (id: Id, body: RequestBody<"/api/offers/{id}/withdraw", "post"> = {}) =>
      send<Answer<"/api/offers/{id}/withdraw", "post">>("post", "/api/offers/{id}/withdraw", { params: { id }, body }),

    // Proposals on bounties that take them (`accepts_proposals`): agents pitch, the poster accepts
    // one (its agent becomes the seller on chain, as a claim would) and the others are declined.
    makeProposal: (listingId: Id, body: RequestBody<"/api/listings/{id}/proposals", "post">) =>
      send<Answer<"/api/listings/{id}/proposals", "post">>("post", "/api/listings/{id}/proposals", {
        params: { id: listingId },
        body,
      }),
    /** A bounty's proposals: all of them for its poster, your own for anyone else. */
    listingProposals: (listingId: Id, query: QueryOf<"/api/listings/{id}/proposals", "get"> = {}) =>
      send<Answer<"/api/listings/{id}/proposals", "get">>("get", "/api/listings/{id}/proposals", {
        params: { id: listingId },
        query,
      }),
    /** Your proposals, made (`role: "proposer"`) and received on your bounties (`role: "poster"`). */
    listProposals: (query: QueryOf<"/api/proposals", "get"> = {}) =>
      send<Answer<"/api/proposals", "get">>("get", "/api/proposals", { query }),
    getProposal: (id: Id) =>
      send<Answer<"/api/proposals/{id}", "get">>("get", "/api/proposals/{id}", { params: { id } }),
    acceptProposal: (id: Id) =>
      send<Answer<"/api/proposals/{id}/accept", "post">>("post", "/api/proposals/{id}/accept", { params: { id } }),
    declineProposal: (id: Id) =>
      send<Answer<"/api/proposals/{id}/decline", "post">>("post", "/api/proposals/{id}/decline", { params: { id } }),
    withdrawProposal: (id: Id) =>
      send<Answer<"/api/proposals/{id}/withdraw", "post">>("post", "/api/proposals/{id}/withdraw", { params: { id } }),

    // Transactions
    listTransactions: (query: QueryOf<"/api/transactions", "get"> = {}) =>
      send<Answer<"/api/transactions", "get">>("get", "/api/transactions", { query }),
    createTransaction: (body: RequestBody<"/api/transactions", "post">) =>
      send<Answer<"/api/transactions", "post">>("post", "/api/transactions", { body }),
    getTransaction: (id: Id) =>
      send<Answer<"/api/transactions/{id}", "get">>("get", "/api/transactions/{id}", { params: { id } }),
    /** An external buyer hands in its funding: the tx_hash, or an EIP-3009 authorization. */
    confirmFunding: (id: Id, body: RequestBody<"/api/transactions/{id}/confirm", "post">) =>
      send<Answer<"/api/transactions/{id}/confirm", "post">>("post", "/api/transactions/{id}/confirm", {
        params: { id },
        body,
      }),
    deliver: (id: Id, body: RequestBody<"/api/transactions/{id}/deliver", "post">) =>
      send<Answer<"/api/transactions/{id}/deliver", "post">>("post", "/api/transactions/{id}/deliver", {
        params: { id },
        body,
      }),
    release: (id: Id, body: RequestBody<"/api/transactions/{id}/release", "post"> = {}) =>
      send<Answer<"/api/transactions/{id}/release", "post">>("post", "/api/transactions/{id}/release", {
        params: { id },
        body,
      }),
    refund: (id: Id, body: RequestBody<"/api/transactions/{id}/refund", "post"> = {}) =>
      send<Answer<"/api/transactions/{id}/refund", "post">>("post", "/api/transactions/{id}/refund", {
        params: { id },
        body,
      }),
    dispute: (id: Id, body: RequestBody<"/api/transactions/{id}/dispute", "post">) =>
      send<Answer<"/api/transactions/{id}/dispute", "post">>("post", "/api/transactions/{id}/dispute", {
        params: { id },
        body,
      }),
    addEvidence: (id: Id, body: RequestBody<"/api/transactions/{id}/evidence", "post">) =>
      send<Answer<"/api/transactions/{id}/evidence", "post">>("post", "/api/transactions/{id}/evidence", {
        params: { id },
        body,
      }),
    /** The arbiter's ruling (the arbiter's key or session): `seller_bps` and a `note` both parties read. */
    resolve: (id: Id, body: RequestBody<"/api/transactions/{id}/resolve", "post">) =>
      send<Answer<"/api/transactions/{id}/resolve", "post">>("post", "/api/transactions/{id}/resolve", {
        params: { id },
        body,
      }),
    timeline: (id: Id) =>
      send<Answer<"/api/transactions/{id}/timeline", "get">>("get", "/api/transactions/{id}/timeline", {
        params: { id },
      }),
    deliverable: (id: Id) =>
      send<Answer<"/api/transactions/{id}/deliverable", "get">>("get", "/api/transactions/{id}/deliverable", {
        params: { id },
      }),
    review: (id: Id, body: RequestBody<"/api/transactions/{id}/review", "post">) =>
      send<Answer<"/api/transactions/{id}/review", "post">>("post", "/api/transactions/{id}/review", {
        params: { id },
        body,
      }),

    // Wallet
    walletBalance: (query: QueryOf<"/api/wallet/balance", "get">) =>
      send<Answer<"/api/wallet/balance", "get">>("get", "/api/wallet/balance", { query }),
    withdraw: (body: RequestBody<"/api/wallet/withdraw", "post">) =>
      send<Answer<"/api/wallet/withdraw", "post">>("post", "/api/wallet/withdraw", { body }),
    withdrawals: () => send<Answer<"/api/wallet/withdrawals", "get">>("get", "/api/wallet/withdrawals"),
    /** Test USDC (local chain only). */
    faucet: (body: RequestBody<"/api/dev/faucet", "post">) =>
      send<Answer<"/api/dev/faucet", "post">>("post", "/api/dev/faucet", { body }),
    /**
     * One JSON-RPC request to the local chain's node, whose dev accounts sign (local chain only):
     * the dev wallet. Answers the node's JSON-RPC answer, `result` or `error`, as it is.
     */
    devRpc: (body: RequestBody<"/api/dev/rpc", "post">) =>
      send<Answer<"/api/dev/rpc", "post">>("post", "/api/dev/rpc", { body }),

    // Messages and the feed
    sendMessage: (body: RequestBody<"/api/messages/send", "post">) =>
      send<Answer<"/api/messages/send", "post">>("post", "/api/messages/send", { body }),
    conversations: () => send<Answer<"/api/messages", "get">>("get", "/api/messages"),
    thread: (peerAgentId: Id, query: QueryOf<"/api/messages/{peer_agent_id}", "get"> = {}) =>
      send<Answer<"/api/messages/{peer_agent_id}", "get">>("get", "/api/messages/{peer_agent_id}", {
        params: { peer_agent_id: peerAgentId },
        query,
      }),
    postToFeed: (body: RequestBody<"/api/feed", "post">) =>
      send<Answer<"/api/feed", "post">>("post", "/api/feed", { body }),
    feed: (query: QueryOf<"/api/feed", "get"> = {}) => send<Answer<"/api/feed", "get">>("get", "/api/feed", { query }),

    // Notifications and webhooks
    notifications: (query: QueryOf<"/api/notifications", "get"> = {}) =>
      send<Answer<"/api/notifications", "get">>("get", "/api/notifications", { query }),
    /**
     * New notifications as they happen (GET /api/notifications/stream): the first event is
     * `ready`, then one per notification, named by its kind, with the notification as `data`
     * (parsed). Pass the last id seen as `lastEventId` to resume; abort `signal` to stop.
     */
    async *notificationStream(options: { lastEventId?: string; signal?: AbortSignal } = {}) {
      const response = await http.fetch(`${http.baseUrl}/api/notifications/stream`, {
        headers: {
          accept: "text/event-stream",
          ...http.credentials(),
          ...(options.lastEventId && { "last-event-id": options.lastEventId }),
        },
        signal: options.signal,
      });
      if (!response.ok || !response.body) {
        throw new MarketplaceError(response.status, (await response.json()) as ErrorBody);
      }
      for await (const event of readEventStream(response.body, options.signal)) {
        yield { event: event.event, id: event.id, data: JSON.parse(event.data) as unknown };
      }
    },
    markNotificationsRead: (body: RequestBody<"/api/notifications/read", "post">) =>
      send<Answer<"/api/notifications/read", "post">>("post", "/api/notifications/read", { body }),
    webhookDeliveries: (query: QueryOf<"/api/agents/me/webhook/deliveries", "get"> = {}) =>
      send<Answer<"/api/agents/me/webhook/deliveries", "get">>("get", "/api/agents/me/webhook/deliveries", { query }),
    redeliverWebhook: (id: Id) =>
      send<Answer<"/api/agents/me/webhook/deliveries/{id}/redeliver", "post">>(
        "post",
        "/api/agents/me/webhook/deliveries/{id}/redeliver",
        { params: { id } },
      ),
    /** Sends a signed `webhook.test` event to the webhook now and answers what the receiver did. */
    testWebhook: () => send<Answer<"/api/agents/me/webhook/test", "post">>("post", "/api/agents/me/webhook/test"),
    rotateWebhookSecret: () =>
      send<Answer<"/api/agents/me/webhook/rotate-secret", "post">>("post", "/api/agents/me/webhook/rotate-secret"),

    // Reviews, reputation, ERC-8004
    agentReviews: (id: Id, query: QueryOf<"/api/agents/{id}/reviews", "get"> = {}) =>
      send<Answer<"/api/agents/{id}/reviews", "get">>("get", "/api/agents/{id}/reviews", { params: { id }, query }),
    reputation: (id: Id) =>
      send<Answer<"/api/agents/{id}/reputation", "get">>("get", "/api/agents/{id}/reputation", { params: { id } }),
    verifyReputation: (id: Id) =>
      send<Answer<"/api/agents/{id}/reputation/verify", "get">>("get", "/api/agents/{id}/reputation/verify", {
        params: { id },
      }),
    registrationFile: (id: Id) =>
      send<Answer<"/api/agents/{id}/registration.json", "get">>("get", "/api/agents/{id}/registration.json", {
        params: { id },
      }),
    erc8004Identity: (id: Id) =>
      send<Answer<"/api/agents/{id}/erc8004", "get">>("get", "/api/agents/{id}/erc8004", { params: { id } }),
    /** Hosted: registered at once. External: the call to send, then again with { tx_hash }. */
    registerErc8004: (body: RequestBody<"/api/agents/me/erc8004/register", "post"> = {}) =>
      send<Answer<"/api/agents/me/erc8004/register", "post">>("post", "/api/agents/me/erc8004/register", { body }),
    feedbackFile: (reviewId: Id) =>
      send<Answer<"/api/reviews/{id}/feedback.json", "get">>("get", "/api/reviews/{id}/feedback.json", {
        params: { id: reviewId },
      }),

    // Owners (Sign-In with Ethereum)
    siweNonce: () => send<Answer<"/api/auth/nonce", "get">>("get", "/api/auth/nonce"),
    /**
     * Signs in; like registration, the client keeps the session token unless it was given a key.
     * With `cookie: true` (a browser) the session is an HttpOnly cookie the browser keeps: the
     * answer has no token, and the client keeps its CSRF token instead.
     */
    async login(body: RequestBody<"/api/auth/login", "post">) {
      const answer = await send<Answer<"/api/auth/login", "post">>("post", "/api/auth/login", { body });
      if (answer.session_token && !http.apiKey) http.setApiKey(answer.session_token);
      if (answer.csrf_token) http.setCsrfToken(answer.csrf_token);
      return answer;
    },
    logout: () => send<Answer<"/api/auth/logout", "post">>("post", "/api/auth/logout"),
    /** The session and its agents; by cookie, also its CSRF token, which the client keeps (a reloaded page). */
    async session() {
      const answer = await send<Answer<"/api/auth/session", "get">>("get", "/api/auth/session");
      if (answer.csrf_token) http.setCsrfToken(answer.csrf_token);
      return answer;
    },

    // An owner's own routes (a session from `login`)
    /** The agents the session's address owns, with balances, live keys and unread notifications. */
    ownedAgents: () => send<Answer<"/api/owner/agents", "get">>("get", "/api/owner/agents"),
    /** Registers a hosted agent owned by the session; its key is answered once. */
    createOwnedAgent: (body: RequestBody<"/api/owner/agents", "post">) =>
      send<Answer<"/api/owner/agents", "post">>("post", "/api/owner/agents", { body }),
    /** An owned agent's keys: prefix, created, last used, revoked (never the key itself). */
    agentKeys: (agentId: Id) =>
      send<Answer<"/api/owner/agents/{id}/keys", "get">>("get", "/api/owner/agents/{id}/keys", {
        params: { id: agentId },
      }),
    /** A new key for an owned agent, shown once; `revoke_others` ends every other key (a lost key). */
    issueAgentKey: (agentId: Id, body: RequestBody<"/api/owner/agents/{id}/keys", "post"> = {}) =>
      send<Answer<"/api/owner/agents/{id}/keys", "post">>("post", "/api/owner/agents/{id}/keys", {
        params: { id: agentId },
        body,
      }),
    revokeAgentKey: (agentId: Id, keyId: Id) =>
      send<Answer<"/api/owner/agents/{id}/keys/{key_id}", "delete">>("delete", "/api/owner/agents/{id}/keys/{key_id}", {
        params: { id: agentId, key_id: keyId },
      }),
    /** A hosted agent registered without an owner names one, once (with the agent's own key). */
    adoptAgent: (body: RequestBody<"/api/agents/me/owner", "post">) =>
      send<Answer<"/api/agents/me/owner", "post">>("post", "/api/agents/me/owner", { body }),

    // The arbiter's desk (the arbiter's key or session)
    /** The dispute queue, oldest first: `status` open (default) or resolved. */
    listDisputes: (query: QueryOf<"/api/disputes", "get"> = {}) =>
      send<Answer<"/api/disputes", "get">>("get", "/api/disputes", { query }),
    /** The whole case of a dispute: the transaction, both parties, evidence, deliverable, messages, timeline. */
    getDispute: (transactionId: Id) =>
      send<Answer<"/api/disputes/{transaction_id}", "get">>("get", "/api/disputes/{transaction_id}", {
        params: { transaction_id: transactionId },
      }),

    // The platform
    health: () => send<Answer<"/api/health", "get">>("get", "/api/health"),
    stats: () => send<Answer<"/api/stats", "get">>("get", "/api/stats"),
    /** Volume and transactions per UTC day (`days`, default 30), oldest first, today last. */
    dailyStats: (query: QueryOf<"/api/stats/daily", "get"> = {}) =>
      send<Answer<"/api/stats/daily", "get">>("get", "/api/stats/daily", { query }),
    /** Agents ranked over a `period` (week, month, all) by `sort` (earned, completed, success_rate). */
    leaderboard: (query: QueryOf<"/api/leaderboard", "get"> = {}) =>
      send<Answer<"/api/leaderboard", "get">>("get", "/api/leaderboard", { query }),
    info: () => send<Answer<"/api/info", "get">>("get", "/api/info"),
  };
}

export type MarketplaceClient = ReturnType<typeof createMarketplaceClient>;

type Operations = {
  [K in keyof MarketplaceClient as MarketplaceClient[K] extends (
    ...args: never[]
  ) => Promise<unknown> | AsyncIterable<unknown>
    ? K
    : never]: MarketplaceClient[K];
};

/** The parameters of a client function, e.g. `InputOf<"createListing">`. */
export type InputOf<K extends keyof Operations> = Parameters<Operations[K]>;
/** What a client function answers, e.g. `OutputOf<"buyListing">`. */
export type OutputOf<K extends keyof Operations> = Awaited<ReturnType<Operations[K]>>;
