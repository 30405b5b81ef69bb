import { describe, expect, it } from "vitest";
import { StepRevertedError } from "../byob.ts";
import { AwaitingApprovalError, MarketplaceError } from "../http.ts";
import { AmountError } from "./amounts.ts";
import { answerResult, errorResult, ToolRefusal, toolResult } from "./tool-result.ts";

const textOf = (result: { content: unknown[] }) => JSON.parse((result.content[0] as { text: string }).text);

describe("tool results", () => {
  it("answers JSON text with USDC twins of wei amounts", () => {
    const result = answerResult({ state: "FUNDED", amount_wei: "2500000" });
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toEqual({ state: "FUNDED", amount_wei: "2500000", amount_usdc: "2.500000" });
  });

  it("turns a MarketplaceError into an error result with status, code, message, the API's fields and a hint", () => {
    const refusal = new MarketplaceError(402, {
      error: "Insufficient USDC balance",
      code: "insufficient_balance",
      required_wei: "5000000",
      shortfall_wei: "4000000",
      request_id: "r1",
    });
    const result = errorResult(refusal);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toEqual({
      status: 402,
      code: "insufficient_balance",
      message: "Insufficient USDC balance",
      required_wei: "5000000",
      required_usdc: "5.000000",
      shortfall_wei: "4000000",
      shortfall_usdc: "4.000000",
      request_id: "r1",
      hint: expect.stringContaining("shortfall_usdc"),
    });
  });

  it("keeps the status and code of the API over fields of the same name in its body", () => {
    const refusal = new MarketplaceError(409, { error: "Cannot release", code: "conflict", status: "x" });
    expect(textOf(errorResult(refusal))).toMatchObject({ status: 409, code: "conflict", message: "Cannot release" });
  });

  it("names the server's own refusals, bad amounts, reverted wallet steps and an unreachable API", () => {
    expect(textOf(errorResult(new AmountError("bad")))).toEqual({ code: "invalid_amount", message: "bad" });
    expect(textOf(errorResult(new ToolRefusal("already_registered", "once")))).toEqual({
      code: "already_registered",
      message: "once",
    });
    const hash = `0x${"ab".repeat(32)}` as const;
    expect(textOf(errorResult(new StepRevertedError(hash)))).toMatchObject({
      code: "wallet_step_reverted",
      tx_hash: hash,
    });
    expect(textOf(errorResult(new TypeError("fetch failed")))).toMatchObject({ code: "api_unreachable" });
  });

  it("runs a tool's work: its answer, or the error result of what it threw", async () => {
    expect(textOf(await toolResult(async () => ({ ok: true })))).toEqual({ ok: true });
    const failed = await toolResult(async () => {
      throw new AmountError("no");
    });
    expect(failed.isError).toBe(true);
  });

  it("answers a move waiting for the owner's approval as a result, not an error, and hints at a spending cap", async () => {
    const body = {
      state: "AWAITING_APPROVAL" as const,
      approval: {
        id: "5d2a8c4e-1f3b-4e7a-9c6d-0b8e2f4a6c13",
        agent_id: "7c1e4b2a-9d3f-4a6e-8b5c-2f1d0e9a8b7c",
        action: "withdrawal" as const,
        summary: "Withdraw",
        amount_wei: "3000000",
        amount_usdc: "3.00",
        state: "pending" as const,
        request: {},
        result: null,
        failure: null,
        created_at: "2026-01-01T12:00:00.000Z",
        expires_at: "2026-01-02T12:00:00.000Z",
        decided_at: null,
        completed_at: null,
      },
      message: "Above the approval threshold",
    };
    const waiting = await toolResult(async () => {
      throw new AwaitingApprovalError(body);
    });
    expect(waiting.isError).toBeUndefined();
    expect(textOf(waiting)).toMatchObject({ state: "AWAITING_APPROVAL", approval: { id: body.approval.id } });
    const capped = errorResult(
      new MarketplaceError(402, {
        error: "Over the per-day spending limit",
        code: "spending_limit",
        remaining_wei: "0",
      }),
    );
    expect(textOf(capped)).toMatchObject({ code: "spending_limit", hint: expect.stringContaining("remaining_wei") });
  });
});
