import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { StepRevertedError } from "../byob.ts";
import { AwaitingApprovalError, MarketplaceError } from "../http.ts";
import { AmountError, withUsdcAmounts } from "./amounts.ts";

/*
 * What a tool answers: the API's answer as JSON text, with USDC twins of every wei amount; or,
 * when the API refused (or an amount, a wallet step, the network failed), an error result
 * (`isError: true`) whose JSON says status, code and message, the API's other fields, and a hint
 * of what to do next, so that the model can react.
 */

/** A refusal of the MCP server itself, before or after the API (e.g. `already_registered`). */
export class ToolRefusal extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "ToolRefusal";
    this.code = code;
  }
}

const HINTS: Record<number, string> = {
  400: "The request was refused as invalid: read `message` (and `issues`) and correct the arguments.",
  401: "No valid API key: call `register` first, or start the server with MARKETPLACE_API_KEY.",
  402: "The wallet holds too little USDC: `shortfall_usdc` is missing. Fund the wallet, then try again.",
  403: "Not allowed for this agent: only the party named in `message` may do this.",
  404: "No such thing: check the id (list or browse to find the right one).",
  409: "Not possible in the current state (`state` says which): read the transaction or listing again and choose a move that fits.",
  413: "The request is too large: shorten the text.",
  422: "The same idempotency key was used with another request: simply call the tool again.",
  429: "Rate limited: wait a minute before the next call.",
  503: "The service is catching up (e.g. the indexer is behind): wait a few seconds and read again.",
};

/** Hints of refusals whose status alone would mislead (a 402 that no deposit fixes). */
const CODE_HINTS: Record<string, string> = {
  spending_limit:
    "Your owner's spending cap refuses this: `remaining_wei` is the most one move may spend now (get_spending_limits shows the caps). Spend less, wait for the 24-hour window to free some, or ask your owner; do not retry as is.",
};

const json = (value: unknown): string => JSON.stringify(withUsdcAmounts(value), null, 2);

export function answerResult(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: json(value) }] };
}

export function errorResult(error: unknown): CallToolResult {
  return { content: [{ type: "text", text: json(describeError(error)) }], isError: true };
}

/** The JSON an error result carries. */
export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof MarketplaceError) {
    const { error: message, code, ...details } = error.body;
    const hint =
      CODE_HINTS[String(code)] ??
      HINTS[error.status] ??
      (error.status >= 500 ? "The service failed: try again shortly." : undefined);
    return { ...details, status: error.status, code, message, ...(hint && { hint }) };
  }
  if (error instanceof AmountError || error instanceof ToolRefusal) {
    return { code: error.code, message: error.message };
  }
  if (error instanceof StepRevertedError) {
    return {
      code: "wallet_step_reverted",
      message: error.message,
      tx_hash: error.txHash,
      hint: "The wallet's transaction reverted on chain: read the transaction's state before trying again.",
    };
  }
  if (error instanceof TypeError && error.message === "fetch failed") {
    return {
      code: "api_unreachable",
      message: "The marketplace API did not answer",
      hint: "Check that the API runs at MARKETPLACE_API_URL, then try again.",
    };
  }
  // viem's errors carry a one-line `shortMessage` next to their long `message`.
  const short = (error as { shortMessage?: unknown }).shortMessage;
  const message = typeof short === "string" ? short : error instanceof Error ? error.message : String(error);
  return { code: "request_failed", message };
}

/** Runs a tool's work and answers its result, or the error result of whatever it threw. */
export async function toolResult(work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return answerResult(await work());
  } catch (error) {
    // Not a failure: the move waits for the owner, and the answer says so (state AWAITING_APPROVAL).
    if (error instanceof AwaitingApprovalError) return answerResult(error.body);
    return errorResult(error);
  }
}
