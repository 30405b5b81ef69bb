import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerHosted, type TestApp, testApp } from "../../../test/harness.ts";
import { agentSpends, relayedTransactions } from "../../db/schema.ts";
import {
  capExceeded,
  largestMove,
  NO_LIMITS,
  needsApproval,
  SpendingLimitError,
  type SpendingLimits,
  spentInWindow,
} from "./spending-caps.ts";

/*
 * The rules of spending caps (which cap a move passes, what remains, when the owner is asked) and
 * the day's spending as Postgres sums it: the last 24 hours' moves, less those whose send reverted
 * or was dropped and those never signed within 5 minutes.
 */

const caps = (
  perPurchase: bigint | null,
  perDay: bigint | null,
  approvalAbove: bigint | null = null,
): SpendingLimits => ({
  perPurchaseWei: perPurchase,
  perDayWei: perDay,
  approvalAboveWei: approvalAbove,
});

describe("the rules", () => {
  it("names the cap a move passes: one move's first, then the day's; at the cap it fits", () => {
    expect(capExceeded(NO_LIMITS, 10n ** 30n, 10n ** 30n)).toBeUndefined();
    expect(capExceeded(caps(10n, 100n), 0n, 11n)).toBe("per_purchase");
    expect(capExceeded(caps(10n, 100n), 95n, 11n)).toBe("per_purchase");
    expect(capExceeded(caps(10n, 100n), 95n, 6n)).toBe("per_day");
    expect(capExceeded(caps(10n, 100n), 90n, 10n)).toBeUndefined();
    expect(capExceeded(caps(null, 0n), 0n, 1n)).toBe("per_day");
    expect(capExceeded(caps(0n, null), 0n, 0n)).toBeUndefined();
  });

  it("says the most one move may spend now, never below zero", () => {
    expect(largestMove(NO_LIMITS, 5n)).toBeNull();
    expect(largestMove(caps(10n, null), 500n)).toBe(10n);
    expect(largestMove(caps(null, 100n), 30n)).toBe(70n);
    expect(largestMove(caps(10n, 100n), 95n)).toBe(5n);
    expect(largestMove(caps(10n, 100n), 150n)).toBe(0n);
  });

  it("asks the owner only for the agent's own moves above the threshold", () => {
    const limits = caps(null, null, 5n);
    expect(needsApproval(limits, { kind: "agent" }, 6n)).toBe(true);
    expect(needsApproval(limits, { kind: "agent" }, 5n)).toBe(false);
    expect(needsApproval(limits, { kind: "owner" }, 6n)).toBe(false);
    expect(needsApproval(limits, { kind: "approval", approvalId: "x" }, 6n)).toBe(false);
    expect(needsApproval(NO_LIMITS, { kind: "agent" }, 10n ** 20n)).toBe(false);
  });

  it("refuses with the cap, its amount, the day's spending and what remains, in wei strings", () => {
    const error = new SpendingLimitError("per_day", caps(4_000_000n, 10_000_000n), 7_500_000n, 3_000_000n);
    expect(error.code).toBe("spending_limit");
    expect(error.details).toEqual({
      limit: "per_day",
      limit_wei: "10000000",
      amount_wei: "3000000",
      spent_wei: "7500000",
      remaining_wei: "2500000",
      window_hours: 24,
    });
    expect(error.message).toContain("7.50 USDC of 10.00 USDC, 2.50 USDC remain");
  });
});

describe("the day's spending", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  const hash = () => `0x${randomBytes(32).toString("hex")}`;

  /** An outbox row of a send in `status`, on a chain instance of its own (nothing re-sends it). */
  async function send(status: "signed" | "mined" | "reverted" | "dropped"): Promise<string> {
    const txHash = hash();
    await t.db.insert(relayedTransactions).values({
      chainId: t.config.chainId,
      chainInstance: `spending-caps-test-${txHash}`,
      fromAddress: "0x0000000000000000000000000000000000000001",
      nonce: 0,
      toAddress: "0x0000000000000000000000000000000000000002",
      data: "0x",
      purpose: "fund",
      rawTransaction: "0x",
      txHash,
      status,
    });
    return txHash;
  }

  it("sums the last 24 hours' moves whose send did not revert, and the unsigned ones for 5 minutes", async () => {
    const agent = await registerHosted(t.app, "day");
    const spend = (amountWei: bigint, txHash: string | null, age = "0 seconds") =>
      t.db.insert(agentSpends).values({
        agentId: agent.id,
        action: "buy",
        amountWei: amountWei.toString(),
        txHash,
        createdAt: sql`now() - ${age}::interval`,
      });
    expect(await spentInWindow(t.db, agent.id)).toBe(0n);
    await spend(1n, await send("mined"));
    await spend(2n, await send("signed"));
    await spend(4n, null, "1 minute");
    // Not counted: reverted, dropped, older than a day, unsigned for longer than 5 minutes.
    await spend(8n, await send("reverted"));
    await spend(16n, await send("dropped"));
    await spend(32n, await send("mined"), "25 hours");
    await spend(64n, null, "6 minutes");
    expect(await spentInWindow(t.db, agent.id)).toBe(7n);
  });
});
