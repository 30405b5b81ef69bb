import { describe, expect, it } from "vitest";
import { buyListing } from "./actions/listings/buyListing.ts";
import { createBaseClient, createMarketplaceClient } from "./client.ts";
import { MarketplaceError } from "./http.ts";

/*
 * What an action sends for its parameters (path, query and body fields in one object), and what the
 * hand-written ones keep on the client; against a recording fetch, no API.
 */

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

function recordingFetch(answer: (sent: Sent) => { status?: number; body: unknown }) {
  const sent: Sent[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    const request = {
      method: init.method ?? "GET",
      url,
      headers: init.headers as Record<string, string>,
      body: init.body ? JSON.parse(init.body as string) : undefined,
    };
    sent.push(request);
    const { status = 200, body } = answer(request);
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, sent };
}

const baseUrl = "http://api.invalid/";

describe("actions", () => {
  it("split one object into the path, the query and the body", async () => {
    const { fetch, sent } = recordingFetch(() => ({ body: {} }));
    const client = createMarketplaceClient({ baseUrl, fetch, apiKey: "k" });
    await client.buyListing({ id: "a b", expected_price_wei: "5", deadline_hours: 24 });
    await client.browseListings({ category: "coding", sort: "cheapest", limit: 5 });
    await client.getConversation({ peer_agent_id: "p", limit: 2 });
    await client.revokeAgentKey({ id: "agent", key_id: "key" });
    await client.getMe();
    expect(sent.map(({ method, url, body }) => ({ method, url, body }))).toEqual([
      {
        method: "POST",
        url: "http://api.invalid/api/listings/a%20b/buy",
        body: { expected_price_wei: "5", deadline_hours: 24 },
      },
      { method: "GET", url: "http://api.invalid/api/listings?category=coding&sort=cheapest&limit=5", body: undefined },
      { method: "GET", url: "http://api.invalid/api/messages/p?limit=2", body: undefined },
      { method: "DELETE", url: "http://api.invalid/api/owner/agents/agent/keys/key", body: {} },
      { method: "GET", url: "http://api.invalid/api/agents/me", body: undefined },
    ]);
    expect(sent[0]?.headers).toMatchObject({ authorization: "Bearer k", "idempotency-key": expect.any(String) });
  });

  it("are the same functions bound or given a client", async () => {
    const { fetch, sent } = recordingFetch(() => ({ body: { state: "FUNDED" } }));
    const base = createBaseClient({ baseUrl, fetch });
    expect(await buyListing(base, { id: "l" })).toEqual({ state: "FUNDED" });
    expect(sent[0]?.url).toBe("http://api.invalid/api/listings/l/buy");
    expect(base).not.toHaveProperty("buyListing");
  });

  it("throw the API's refusal as a MarketplaceError", async () => {
    const { fetch } = recordingFetch(() => ({ status: 404, body: { error: "No such listing", code: "not_found" } }));
    const error = await createMarketplaceClient({ baseUrl, fetch })
      .getListing({ id: "x" })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(MarketplaceError);
    expect(error).toMatchObject({ status: 404, code: "not_found" });
  });
});

describe("hand-written actions", () => {
  it("registerAgent keeps the answered key, unless the client had one", async () => {
    const { fetch, sent } = recordingFetch(() => ({ status: 201, body: { agent: { id: "a" }, api_key: "new" } }));
    const fresh = createMarketplaceClient({ baseUrl, fetch });
    await fresh.registerAgent({ name: "x" });
    expect(fresh.apiKey).toBe("new");
    await fresh.getMe();
    expect(sent[1]?.headers.authorization).toBe("Bearer new");
    const keyed = createMarketplaceClient({ baseUrl, fetch, apiKey: "mine" });
    await keyed.registerAgent({ name: "y" });
    expect(keyed.apiKey).toBe("mine");
  });

  it("rotateKey and rotateKeyWithSignature switch to the new key", async () => {
    const { fetch } = recordingFetch(() => ({ body: { api_key: "rotated" } }));
    const client = createMarketplaceClient({ baseUrl, fetch, apiKey: "old" });
    await client.rotateKey();
    expect(client.apiKey).toBe("rotated");
    client.useKey(undefined);
    await client.rotateKeyWithSignature({ address: "0x1", nonce: "n", signature: "0x2" });
    expect(client.apiKey).toBe("rotated");
  });

  it("login keeps the session token and the CSRF token; getSession keeps the CSRF token", async () => {
    const { fetch, sent } = recordingFetch((request) => ({
      body: request.url.endsWith("/login") ? { session_token: "sess_1", csrf_token: "c1" } : { csrf_token: "c2" },
    }));
    const client = createMarketplaceClient({ baseUrl, fetch });
    await client.login({ message: "m", signature: "s" });
    expect([client.apiKey, client.csrfToken]).toEqual(["sess_1", "c1"]);
    await client.getSession();
    expect(client.csrfToken).toBe("c2");
    expect(sent[1]?.headers).toMatchObject({ authorization: "Bearer sess_1", "x-csrf-token": "c1" });
  });

  it("streamNotifications yields the stream's events, parsed", async () => {
    const body =
      'event: ready\ndata: {"unread_count":2}\n\n: keep-alive\n\nevent: payment.funded\nid: n1\ndata: {"id":"n1"}\n\n';
    const fetch = (async () =>
      new Response(body, { headers: { "content-type": "text/event-stream" } })) as unknown as typeof globalThis.fetch;
    const events = [];
    for await (const event of createMarketplaceClient({ baseUrl, fetch }).streamNotifications()) events.push(event);
    expect(events).toEqual([
      { event: "ready", id: undefined, data: { unread_count: 2 } },
      { event: "payment.funded", id: "n1", data: { id: "n1" } },
    ]);
  });
});
