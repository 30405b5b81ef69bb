import { describe, expect, it } from "vitest";
import { StepRevertedError } from "../byob.ts";
import { MarketplaceError } from "../http.ts";
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
});
