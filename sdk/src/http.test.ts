import { describe, expect, it } from "vitest";
import { createSender } from "./http.ts";
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
