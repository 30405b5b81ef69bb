import { describe, expect, it } from "vitest";
import { AwaitingApprovalError, createSender } from "./http.ts";
import { IDEMPOTENT_OPERATIONS } from "./idempotent-operations.ts";

/*
 * Retries of writes follow the API's own declaration (idempotent-operations.ts, generated from its
 * OpenAPI document): a write it stores by Idempotency-Key is tried again, with the same key, after a
 * network failure; any other write is not.
 */

/** A fetch that fails on the network `failures` times, then answers 201; it records what it was sent. */
function flakyFetch(failures: number) {
  const calls: { url: string; key: string | undefined }[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    calls.push({ url, key: (init.headers as Record<string, string>)["idempotency-key"] });
    if (calls.length <= failures) throw new TypeError("fetch failed");
    return new Response(JSON.stringify({ ok: true }), { status: 201 });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, calls };
}

describe("retries of writes", () => {
  it("the generated set holds the writes that create or pay, never a login", () => {
    for (const operation of ["POST /api/listings", "POST /api/listings/{id}/buy", "POST /api/messages/send"]) {
      expect(IDEMPOTENT_OPERATIONS.has(operation), operation).toBe(true);
    }
    expect(IDEMPOTENT_OPERATIONS.has("POST /api/auth/login")).toBe(false);
  });

  it("an idempotent write failed on the network is sent again with the same key", async () => {
    const { fetch, calls } = flakyFetch(1);
    const { send } = createSender({ baseUrl: "http://api.invalid", retries: 2, fetch });
    await expect(send("post", "/api/listings", { body: { title: "x" } })).resolves.toEqual({ ok: true });
    expect(calls).toHaveLength(2);
    expect(calls[1]?.key).toBe(calls[0]?.key);
  });

  it("another write failed on the network is not sent again", async () => {
    const { fetch, calls } = flakyFetch(1);
    const { send } = createSender({ baseUrl: "http://api.invalid", retries: 2, fetch });
    await expect(send("post", "/api/auth/login", { body: {} })).rejects.toThrow("fetch failed");
    expect(calls).toHaveLength(1);
  });
});

describe("a move that waits for its owner's approval", () => {
  const approval = {
    id: "5d2a8c4e-1f3b-4e7a-9c6d-0b8e2f4a6c13",
    agent_id: "7c1e4b2a-9d3f-4a6e-8b5c-2f1d0e9a8b7c",
    action: "buy",
    summary: 'Buy "Logo" from Studio',
    amount_wei: "25000000",
    amount_usdc: "25.00",
    state: "pending",
    request: {},
    result: null,
    failure: null,
    created_at: "2026-01-01T12:00:00.000Z",
    expires_at: "2026-01-02T12:00:00.000Z",
    decided_at: null,
    completed_at: null,
  };
  const answering = (status: number, body: unknown) =>
    (async () => new Response(JSON.stringify(body), { status })) as unknown as typeof globalThis.fetch;

  it("throws AwaitingApprovalError with the approval (202 AWAITING_APPROVAL): nothing was paid", async () => {
    const body = { state: "AWAITING_APPROVAL", approval, message: "Above the approval threshold" };
    const { send } = createSender({ baseUrl: "http://api.invalid", fetch: answering(202, body) });
    const sent = send("post", "/api/listings/{id}/buy", { params: { id: "x" }, body: {} });
    await expect(sent).rejects.toBeInstanceOf(AwaitingApprovalError);
    await expect(sent).rejects.toMatchObject({ status: 202, approval, message: "Above the approval threshold" });
  });

  it("answers any other 202 as it is", async () => {
    const { send } = createSender({ baseUrl: "http://api.invalid", fetch: answering(202, { state: "PENDING" }) });
    await expect(send("post", "/api/agents/me/erc8004/register", { body: {} })).resolves.toEqual({ state: "PENDING" });
  });
});
