import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, json, registerAgent, type TestApp, testApp } from "../../test/harness.ts";

/*
 * Hostile bodies and query strings: over the size limit, nested 100,000 levels deep (400
 * `too_deep` on every route), very wide, with huge or repeated parameters. Every answer is a 4xx in
 * the one error shape (or, for an object of unknown fields only where every field is optional, a
 * 200 that changes nothing), quickly, and the app goes on answering.
 */

let t: TestApp;
/** The same app with a body limit wide enough that the JSON parser and the validation see the body. */
let roomy: TestApp;
let key: string;
beforeAll(async () => {
  t = await testApp();
  roomy = await testApp({ bodyLimitBytes: 4 * 1024 * 1024 });
  key = (await registerAgent(t.app, "hostile")).key;
});
afterAll(async () => {
  await t.close();
  await roomy.close();
});

/**
 * Representative writes: with and without a key, with a path parameter. `allOptional`: every field
 * is optional, so an object of unknown fields only is an empty change (200, nothing changes).
 */
const ROUTES: Array<{ method: string; path: () => string; keyed: boolean; allOptional?: boolean }> = [
  { method: "POST", path: () => "/api/agents/register", keyed: false },
  { method: "POST", path: () => "/api/auth/login", keyed: false },
  { method: "POST", path: () => "/api/listings", keyed: true },
  { method: "PATCH", path: () => "/api/agents/me", keyed: true, allOptional: true },
  { method: "POST", path: () => `/api/transactions/${randomUUID()}/confirm`, keyed: true },
  { method: "POST", path: () => `/api/transactions/${randomUUID()}/deliver`, keyed: true },
];

async function send(
  app: TestApp["app"],
  route: (typeof ROUTES)[number],
  body: string | ReadableStream<Uint8Array>,
  agentKey: string,
) {
  const started = performance.now();
  const response = await app.request(route.path(), {
    method: route.method,
    headers: {
      "content-type": "application/json",
      ...(route.keyed && { authorization: `Bearer ${agentKey}` }),
    },
    body,
    ...(body instanceof ReadableStream && { duplex: "half" }),
  } as RequestInit);
  return { response, ms: performance.now() - started };
}

async function expectRefusal(answer: { response: Response; ms: number }, statuses: number[]) {
  expect(statuses).toContain(answer.response.status);
  expect(await json(answer.response.clone())).toMatchObject({
    error: expect.any(String),
    code: expect.any(String),
    request_id: expect.any(String),
  });
  if (answer.response.status === 413) {
    expect(await json(answer.response.clone())).toMatchObject({ code: "payload_too_large" });
  }
  expect(answer.ms).toBeLessThan(5_000);
}

async function expectStillAnswering(app: TestApp["app"]) {
  expect((await get(app, "/api/agents?limit=1")).status).toBe(200);
}

/** A stream of `size` bytes in 16 KiB chunks, with no Content-Length. */
function streamOf(size: number, byte = "[") {
  const chunk = new TextEncoder().encode(byte.repeat(16 * 1024));
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= size) return controller.close();
      controller.enqueue(chunk);
      sent += chunk.length;
    },
  });
}

const DEPTH = 100_000;
const deepArrays = "[".repeat(DEPTH) + "]".repeat(DEPTH);
const deepObjects = `${'{"a":'.repeat(DEPTH)}1${"}".repeat(DEPTH)}`;
const deepInField = `{"agent_name":${deepArrays},"title":${deepArrays},"wallet_address":${deepObjects}}`;
const wideArray = `[${Array.from({ length: 200_000 }, () => "0").join(",")}]`;
const wideObject = `{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":${i}`).join(",")}}`;

describe("bodies over BODY_LIMIT_BYTES", () => {
  for (const route of ROUTES) {
    it(`${route.method} ${route.path().replace(/[0-9a-f-]{36}/, "{id}")}: 413 with or without a Content-Length`, async () => {
      const oversize = JSON.stringify({ name: "x".repeat(t.config.bodyLimitBytes) });
      const declared = await send(t.app, route, oversize, key);
      await expectRefusal(declared, [413]);
      await expectRefusal(await send(t.app, route, streamOf(t.config.bodyLimitBytes * 4), key), [413]);
      // 100,000 unclosed brackets are over the limit too.
      await expectRefusal(await send(t.app, route, "[".repeat(DEPTH), key), [413]);
      await expectStillAnswering(t.app);
    });
  }
});

describe("deeply nested and wide JSON under the limit", () => {
  let roomyKey: string;
  beforeAll(async () => {
    roomyKey = (await registerAgent(roomy.app, "hostile")).key;
  });

  for (const route of ROUTES) {
    it(`${route.method} ${route.path().replace(/[0-9a-f-]{36}/, "{id}")}: 400, never 5xx, and the app answers afterwards`, async () => {
      const profile = async () => json(await get(roomy.app, "/api/agents/me", roomyKey));
      const before = await profile();
      for (const body of [deepArrays, deepObjects, deepInField, "[".repeat(DEPTH), wideArray, wideObject]) {
        const answer = await send(roomy.app, route, body, roomyKey);
        if (route.allOptional && body === wideObject) {
          // Unknown fields are ignored: nothing known to change.
          expect(answer.response.status).toBe(200);
          expect(answer.ms).toBeLessThan(5_000);
        } else {
          await expectRefusal(answer, [400, 404]);
        }
        if ([deepArrays, deepObjects, deepInField].includes(body)) {
          // Refused before any route reads it, whoever asks (http/fit-input.ts).
          expect(await json(answer.response)).toMatchObject({ code: "too_deep" });
        }
      }
      expect(await profile()).toEqual(before);
      await expectStillAnswering(roomy.app);
    }, 30_000);
  }
});

describe("hostile query strings", () => {
  const huge = "k".repeat(200_000);
  const repeated = (name: string, value: string) => Array.from({ length: 10_000 }, () => `${name}=${value}`).join("&");
  const queries = [
    `keyword=${huge}`,
    `${huge}=1`,
    repeated("sort", "newest"),
    repeated("limit", "1"),
    repeated("cursor", "x"),
    `${repeated("keyword", "a")}&${repeated("skill", "b")}`,
    Array.from({ length: 10_000 }, (_, i) => `p${i}=1`).join("&"),
    `keyword=${"%".repeat(10_000)}`,
    `keyword=${"%E0%A4%A".repeat(5_000)}`,
  ];
  for (const path of ["/api/listings", "/api/agents", "/api/feed", "/api/transactions"]) {
    it(`GET ${path}: a 4xx in the error shape or a page, never 5xx`, async () => {
      for (const query of queries) {
        const started = performance.now();
        const response = await get(t.app, `${path}?${query}`, key);
        expect(response.status).toBeLessThan(500);
        if (response.status >= 400) {
          await expectRefusal({ response, ms: performance.now() - started }, [400, 404, 414, 431]);
        }
        expect(performance.now() - started).toBeLessThan(5_000);
      }
      await expectStillAnswering(t.app);
    }, 60_000);
  }
});
