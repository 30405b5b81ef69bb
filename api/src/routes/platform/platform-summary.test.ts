import { agentEscrowAbi } from "@agent-marketplace/contracts";
import { sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { get, json, type TestApp, testApp } from "../../../test/harness.ts";
import { transactionEscrowsSql } from "../../domain/agents/agent-records.ts";
import { formatUsdc } from "../../domain/shared/money.ts";
import { TIER_THRESHOLDS } from "../../domain/shared/reputation.ts";
import { createEscrowEventNotifier } from "../../notifications/escrow-event-notifier.ts";
import { HEARTBEAT_MINUTES } from "../../platform/heartbeat-md.ts";

/*
 * /api/stats, /api/info and /skill.md on the suite's real stack: the figures agree with the
 * database and the transactions' indexed escrows, /api/info has exactly the specification's keys and links that
 * answer, and every endpoint /skill.md names exists in the OpenAPI document.
 */

let t: TestApp;
let operations: Set<string>;
beforeAll(async () => {
  t = await testApp();
  const document = (await json(await get(t.app, "/api/openapi.json"))) as { paths: Record<string, object> };
  operations = new Set(
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    ),
  );
});
afterAll(() => t.close());

/** "METHOD /api/..." mentions in a text. */
function endpointsNamedIn(text: string): string[] {
  return [...text.matchAll(/\b(GET|POST|PATCH|DELETE) (\/api\/[A-Za-z0-9_/{}.-]+)/g)].map(
    ([, method, path]) => `${method} ${path}`,
  );
}

/**
 * Whether the OpenAPI document has the operation. Paths name their parameters as the document does
 * ({id}) or by what they hold ({transaction_id}); the document does not describe itself.
 */
const known = (operation: string) =>
  operation === "GET /api/openapi.json" ||
  operations.has(operation) ||
  operations.has(operation.replace(/\{[a-z_]+\}/g, "{id}"));

/** The figures straight from the tables and the indexer's view (the escrows of transactions only). */
async function expectedStats() {
  const { rows } = await t.db.execute<{
    agents: number;
    fixed: number;
    bounty: number;
    escrows: number;
    settled: string;
  }>(
    sql`SELECT
      (SELECT count(*)::int FROM app.agents WHERE is_active) AS agents,
      (SELECT count(*)::int FROM app.listings WHERE is_active AND listing_type = 'FIXED') AS fixed,
      (SELECT count(*)::int FROM app.listings WHERE is_active AND listing_type = 'BOUNTY') AS bounty,
      (SELECT count(*)::int FROM (${transactionEscrowsSql(t.config.chainId)}) own) AS escrows,
      (SELECT coalesce(sum(e_seller_payout + e_fee_paid), 0)::text FROM (${transactionEscrowsSql(t.config.chainId)}) own
        WHERE e_status IN ('RELEASED', 'RESOLVED')) AS settled`,
  );
  const row = rows[0];
  if (!row) throw new Error("no row");
  return {
    active_agents: row.agents,
    total_volume_usd: formatUsdc(row.settled),
    total_transactions: row.escrows,
    listings: { FIXED: row.fixed, BOUNTY: row.bounty },
  };
}

describe("GET /api/stats", () => {
  it("agrees with the database and the transactions' indexed escrows", async () => {
    // The kept totals follow the escrow events the notifier reads (as the running API's does).
    const notifier = createEscrowEventNotifier({
      db: t.db,
      chainId: t.config.chainId,
      logger: pino({ level: "silent" }),
    });
    // Other test files write meanwhile: compare once two readings around the query agree.
    let matched = false;
    for (let attempt = 0; attempt < 20 && !matched; attempt++) {
      while ((await notifier.tick()) > 0);
      const before = await json(await get(t.app, "/api/stats"));
      const expected = await expectedStats();
      const after = await json(await get(t.app, "/api/stats"));
      if (JSON.stringify(before) === JSON.stringify(after)) {
        expect(before).toEqual(expected);
        matched = true;
      }
    }
    expect(matched).toBe(true);
  });
});

describe("GET /api/info", () => {
  it("has exactly the specification's keys, live stats and links that answer", async () => {
    const info = await json(await get(t.app, "/api/info"));
    expect(Object.keys(info).sort()).toEqual(
      ["platform", "description", "quick_start", "promo", "registration", "links", "stats", "for_agents"].sort(),
    );
    expect(Object.keys(info.stats).sort()).toEqual(["active_agents", "total_transactions", "total_volume_usd"]);
    expect(info.promo).toEqual({ active: false, message: expect.any(String), remaining_slots: 0 });
    expect(info.links.info).toBe("/api/info");
    const deployment = inject("stack").deployment;
    // The fee and the roles are the contract's own, read from it here (the web app shows the fee
    // before every payment and names the dev accounts by role).
    const escrow = deployment.contracts.AgentEscrow;
    const read = (functionName: "feeBps" | "feeRecipient" | "arbiter" | "operator") =>
      t.services.chain.publicClient.readContract({ address: escrow.address, abi: agentEscrowAbi, functionName });
    expect(info.for_agents.chain).toEqual({
      chain_id: deployment.chainId,
      escrow_contract: escrow.address,
      usdc_token: deployment.contracts.USDC.address,
      fee_bps: Number(await read("feeBps")),
      fee_recipient: await read("feeRecipient"),
      arbiter: await read("arbiter"),
      operator: await read("operator"),
    });
    expect(info.for_agents.recommended_flow).toEqual([
      "register",
      "save the key",
      "list bounties",
      "claim a bounty",
      "deliver",
    ]);
    const named = endpointsNamedIn(JSON.stringify(info));
    expect(named).toContain("GET /api/notifications/stream");
    expect(named.filter((operation) => !known(operation))).toEqual([]);
    for (const link of Object.values(info.links) as string[]) {
      expect((await get(t.app, link)).status, link).toBe(200);
    }
  });
});

describe("GET /skill.md", () => {
  it("is Markdown naming this deployment, the tier thresholds, and only endpoints that exist", async () => {
    const response = await get(t.app, "/skill.md");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/markdown/);
    const text = await response.text();
    const deployment = inject("stack").deployment;
    expect(text).toContain(deployment.contracts.AgentEscrow.address);
    expect(text).toContain(`chain ${deployment.chainId}`);
    expect(text).toContain(`at least ${TIER_THRESHOLDS.TRUSTED.completed} completed`);
    // The caps a hosted agent's owner may set, and how a move answers under them.
    for (const words of ["GET /api/agents/me/limits", "spending_limit", "AWAITING_APPROVAL", "approval.approved"]) {
      expect(text).toContain(words);
    }
    const named = endpointsNamedIn(text);
    expect(named.length).toBeGreaterThan(8);
    expect(named.filter((operation) => !known(operation))).toEqual([]);
  });
});

describe("GET /heartbeat.md", () => {
  it("is Markdown with this deployment's URLs, naming only endpoints that exist, linked from /skill.md and /api/info", async () => {
    const response = await get(t.app, "/heartbeat.md");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/markdown/);
    const text = await response.text();
    const origin = new URL(response.url || "http://localhost/").origin;
    expect(text).toContain(`${origin}/api/notifications?unread=true`);
    expect(text).toContain(`every ${HEARTBEAT_MINUTES} minutes`);
    expect(text).toContain(`of your ${t.config.rateLimitPerMinute} a minute`);
    // Its URLs are absolute: as paths, each names an operation of the document.
    const named = endpointsNamedIn(text.replaceAll(`${origin}/api/`, "/api/"));
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((operation) => !known(operation))).toEqual([]);
    expect(await (await get(t.app, "/skill.md")).text()).toContain(`${origin}/heartbeat.md`);
    const info = (await json(await get(t.app, "/api/info"))) as { links: Record<string, string> };
    expect(info.links.heartbeat).toBe("/heartbeat.md");
  });
});
