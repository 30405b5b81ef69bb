import { z } from "@hono/zod-openapi";
import { getAddress, isAddress } from "viem";
import { ERROR_CODES, ERROR_STATUS } from "../http/error-codes.ts";

/** Shared pieces of request and response schemas. */

/** Largest value a uint256 can hold. */
const UINT256_MAX = 2n ** 256n - 1n;

/** A request id as examples show it (X-Request-Id, `request_id`). */
export const EXAMPLE_REQUEST_ID = "3f9d2b1e-6c4a-4e8f-9a7b-1d2c3e4f5a6b";

export const Uuid = z.uuid().openapi({ example: "0b7c8f5e-2d1a-4c3b-9e8f-7a6b5c4d3e2f" });

/** A wallet address in; answered checksummed. */
export const Address = z
  .string()
  .refine((value) => /^0x[0-9a-fA-F]{40}$/.test(value) && isAddress(value, { strict: false }), {
    message: "must be 0x followed by 40 hex characters",
  })
  .transform((value) => getAddress(value))
  .openapi({ type: "string", example: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" });

const DIGITS = /^\d{1,78}$/;

/**
 * A USDC amount in wei: a string of digits that fits a uint256. zod runs every check even after the
 * regex fails, so the BigInt checks skip what is not digits (BigInt("1.5") throws: a 500, not a 400).
 */
export const Wei = z
  .string()
  .regex(DIGITS, "must be a string of digits (USDC wei)")
  .refine((value) => !DIGITS.test(value) || BigInt(value) <= UINT256_MAX, { message: "is larger than a uint256" })
  .openapi({ example: "1500000" });

/** A positive USDC amount in wei. */
export const PositiveWei = Wei.refine((value) => !DIGITS.test(value) || BigInt(value) > 0n, {
  message: "must be greater than 0",
});

/** Escrow amounts are uint128 on chain. */
export const MAX_ESCROW_WEI = 2n ** 128n - 1n;

/** A positive USDC amount an escrow can hold: at most 2^128 - 1 wei. */
export const EscrowWei = PositiveWei.refine((value) => !DIGITS.test(value) || BigInt(value) <= MAX_ESCROW_WEI, {
  message: "must be at most 2^128 - 1",
});

/** Wei, PositiveWei and EscrowWei as request bodies take them: also a safe JSON integer (bodyWei). */
export const BodyWei = bodyWei(Wei);
export const BodyPositiveWei = bodyWei(PositiveWei);
export const BodyEscrowWei = bodyWei(EscrowWei);

/**
 * A wei amount of a request body: the string `wei` takes, or, as clients of the live service send
 * amounts, a JSON number that is a safe non-negative integer (Number.isSafeInteger), taken as its
 * decimal string. A fraction, a negative or an unsafe number (above 2^53 - 1, where JSON numbers
 * lose digits) is refused: larger amounts are sent as strings. Bodies only: a query's values are
 * text already.
 */
export function bodyWei<T extends z.ZodType<string, string>>(wei: T) {
  return z
    .union([z.string(), z.number()])
    .refine((value) => typeof value === "string" || (Number.isSafeInteger(value) && value >= 0), {
      message: "a number of wei must be a whole number from 0 to 2^53 - 1 (send larger amounts as a string of digits)",
    })
    .transform((value) => (typeof value === "number" ? value.toFixed(0) : value))
    .pipe(wei)
    .openapi({
      anyOf: [
        { type: "string", pattern: "^\\d{1,78}$" },
        { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      ],
      description: "USDC wei: a string of digits, or a JSON integer up to 2^53 - 1",
      example: "1500000",
    });
}

/** A transaction hash: 0x and 32 bytes of hex. */
export const TxHash = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be 0x followed by 64 hex characters")
  .openapi({ example: `0x${"ab".repeat(32)}` });

/**
 * `agent_id` in the body of an agent's write, as clients of the live service send it: it names the
 * acting agent. Any keyed route refuses another agent's id with 403 (auth/require-agent.ts).
 */
export const ActingAgentId = {
  agent_id: Uuid.optional().openapi({
    description: "Optional: the agent acting, which must be the caller's own (another agent's id → 403)",
  }),
};

/** An http(s) link kept with what a party submitted. */
export const HttpUrl = z
  .string()
  .max(2_000)
  .regex(/^https?:\/\/\S+$/, "must be an http(s) URL");

/** A wallet's balances: exact wei, and the spec's two-decimal forms (rounded down). */
export const BalanceFields = {
  eth_wei: z.string(),
  usdc_wei: z.string(),
  eth_formatted: z.string().openapi({ description: "ETH with two decimals, rounded down", example: "0.01" }),
  usdc_formatted: z.string().openapi({ description: "USDC with two decimals, rounded down", example: "1.50" }),
};

/** The largest page any list answers; a larger `limit` is served as this many. */
export const MAX_PAGE_LIMIT = 100;

/**
 * A page's size: a whole number from 1; above MAX_PAGE_LIMIT it is clamped to MAX_PAGE_LIMIT (as the
 * live service does, so its clients' `limit=200` is a full page, not a 400). Below 1, a fraction or
 * text is 400.
 */
export function pageLimit(defaultSize: number) {
  return z.coerce
    .number()
    .int()
    .min(1)
    .transform((value) => Math.min(value, MAX_PAGE_LIMIT))
    .default(defaultSize)
    .openapi({
      type: "integer",
      minimum: 1,
      default: defaultSize,
      description: `Page size, 1 or more (default ${defaultSize}); above ${MAX_PAGE_LIMIT} it is served as ${MAX_PAGE_LIMIT}`,
      example: defaultSize,
    });
}

export const Limit = pageLimit(50);

export const Cursor = z.string().max(200).optional().openapi({ description: "next_cursor of the previous page" });

export const ErrorBody = z
  .object({
    error: z.string().openapi({ description: "What went wrong, for people" }),
    code: z.enum(ERROR_CODES).openapi({
      description: `Why, for programs: branch on it. Each code is answered with one status: ${Object.entries(
        ERROR_STATUS,
      )
        .map(([code, status]) => `\`${code}\` ${status}`)
        .join(", ")}.`,
    }),
    request_id: z.string().optional().openapi({ description: "The request's X-Request-Id: quote it when reporting" }),
  })
  .passthrough()
  .openapi("Error", {
    example: { error: "Missing or invalid API key", code: "unauthorized", request_id: EXAMPLE_REQUEST_ID },
  });

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Invalid request",
  401: "Missing or invalid API key",
  402: "Insufficient balance",
  403: "Not allowed for this API key",
  404: "Not found",
  409: "Conflict",
  413: "Body too large",
  422: "This Idempotency-Key was used with another request",
  429: "Rate limit exceeded: retry after `Retry-After` seconds",
  502: "The chain refused the transaction",
  503: "Unavailable, or the indexer is behind: retry shortly",
};

/**
 * The error responses a route documents, by status. 429 joins every list: every /api request
 * spends a request budget (rate-limit/middleware.ts `requestBudget`).
 */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(
    [...statuses, 429].map((status) => [
      status,
      { description: ERROR_DESCRIPTIONS[status] ?? "Error", content: { "application/json": { schema: ErrorBody } } },
    ]),
  );
}

export const bearerSecurity = [{ ApiKey: [] }];

/**
 * A route of one transaction that an x402 payment's receipt token also opens (as that
 * transaction's buyer; auth/receipt-tokens.ts): an agent's key, or the receipt token.
 */
export const bearerOrReceiptSecurity: Record<string, string[]>[] = [{ ApiKey: [] }, { ReceiptToken: [] }];

/**
 * A route's query string: the keys it knows, each strictly validated (a wrong value is 400 naming
 * it); keys it does not know are ignored, as unknown body fields are, so clients written for the
 * live service work unchanged. Every route's query schema is one of these (request-bodies.test.ts
 * holds it).
 */
export function queryOf<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object(shape);
}

/** Query booleans arrive as text. */
export const QueryBoolean = z
  .enum(["true", "false"])
  .transform((value) => value === "true")
  .openapi({ type: "string", enum: ["true", "false"] });
