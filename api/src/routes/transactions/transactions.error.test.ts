import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, json, type TestApp, testApp } from "../../../test/harness.ts";

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

/** The response's status and the one error shape. */
async function expectError(path: string, status: number) {
  const response = await get(t.app, path);
  expect(response.status, path).toBe(status);
  const body = await json(response);
  expect(body.error, path).toEqual(expect.any(String));
  expect(body.code, path).toEqual(expect.any(String));
  return body;
}

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("GET /api/transactions/{id} errors", () => {
  it("answers 404 for an id that is not a uuid", async () => {
    for (const id of ["not-a-uuid", "123", "0b7c8f5e-2d1a-4c3b-9e8f-7a6b5c4d3e2", "'%20OR%201=1"]) {
      expect((await expectError(`/api/transactions/${id}`, 404)).code).toBe("not_found");
    }
  });

  it("answers 404 for an unknown uuid", async () => {
    const body = await expectError(`/api/transactions/${randomUUID()}`, 404);
    expect(body).toMatchObject({ error: "Transaction not found", code: "not_found" });
  });
});

describe("GET /api/transactions errors", () => {
  it("answers 400 for a state that is not one of the six", async () => {
    for (const state of ["BOGUS", "pending", "RESOLVED", ""]) {
      const body = await expectError(`/api/transactions?state=${state}`, 400);
      expect(body.issues).toEqual([expect.objectContaining({ field: "state" })]);
    }
  });

  it("answers 400 for a limit below 1 or not an integer; serves one above 100 as 100", async () => {
    for (const limit of ["101", "200"]) expect((await get(t.app, `/api/transactions?limit=${limit}`)).status).toBe(200);
    for (const limit of ["0", "-1", "1.5", "abc"]) {
      const body = await expectError(`/api/transactions?limit=${limit}`, 400);
      expect(body.issues).toEqual([expect.objectContaining({ field: "limit" })]);
    }
  });

  it("answers 400 for an agent_id that is not a uuid", async () => {
    for (const agentId of ["abc", "123", "0b7c8f5e2d1a4c3b9e8f7a6b5c4d3e2f00"]) {
      const body = await expectError(`/api/transactions?agent_id=${agentId}`, 400);
      expect(body.issues).toEqual([expect.objectContaining({ field: "agent_id" })]);
    }
  });

  it("answers 400 for a cursor it did not make", async () => {
    const id = randomUUID();
    const cursors = [
      "garbage!",
      "bm90IGpzb24",
      cursorOf({ id }),
      cursorOf({ at: "yesterday", id }),
      cursorOf({ at: "2026-01-01T00:00:00.000000Z", id: "not-a-uuid" }),
      cursorOf({ at: "2026-13-45T00:00:00Z", id }),
      cursorOf({ at: "2026-02-30T00:00:00Z", id }),
      cursorOf({ at: 5, id }),
      "x".repeat(201),
    ];
    for (const cursor of cursors) await expectError(`/api/transactions?cursor=${cursor}`, 400);
  });

  it("ignores a query parameter it does not know, and still checks the known ones next to it", async () => {
    expect((await get(t.app, "/api/transactions?buyer_id=x")).status).toBe(200);
    const body = await expectError("/api/transactions?buyer_id=x&state=LOST", 400);
    expect(body.error).toContain("state");
  });

  it("answers 400 for an owner that is not an address", async () => {
    for (const owner of ["0x12", "nobody", `0x${"z".repeat(40)}`, ""]) {
      const body = await expectError(`/api/transactions?owner=${owner}`, 400);
      expect(body.error).toContain("owner");
    }
  });

  it("answers 400 for a repeated parameter", async () => {
    await expectError("/api/transactions?state=FUNDED&state=DELIVERED", 400);
    await expectError("/api/transactions?limit=1&limit=2", 400);
  });

  it("accepts a well-formed cursor and an unknown agent with an empty page", async () => {
    const cursor = cursorOf({ at: "2000-01-01T00:00:00.123456Z", id: randomUUID() });
    const response = await get(t.app, `/api/transactions?agent_id=${randomUUID()}&cursor=${cursor}`);
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ transactions: [], next_cursor: null });
  });
});

describe("OpenAPI", () => {
  it("documents both routes with the one Transaction schema", async () => {
    const document = await json(await get(t.app, "/api/openapi.json"));
    expect(document.paths["/api/transactions"].get).toBeDefined();
    expect(document.paths["/api/transactions/{id}"].get).toBeDefined();
    expect(document.components.schemas.Transaction.properties).toHaveProperty("escrow_id_bytes32");
    expect(JSON.stringify(document.components.schemas.TransactionPage)).toContain("#/components/schemas/Transaction");
    expect(JSON.stringify(document.components.schemas.PublicAgent)).toContain("#/components/schemas/Transaction");
  });
});
