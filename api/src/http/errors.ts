import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { ProofRejectedError } from "../chain/errors.ts";
import { isTransportError } from "../chain/transport-error.ts";
import { DomainError, NotFoundError } from "../domain/shared/errors.ts";
import type { AppEnv } from "./env.ts";
import { ERROR_STATUS, type ErrorCode, isErrorCode } from "./error-codes.ts";
import { NOT_FOUND_PARAM } from "./params.ts";

/**
 * An HTTP-level refusal made by the HTTP layer itself (body too large, idempotency key reused,
 * rate limit, invalid request shape), answered with its code's status (http/error-codes.ts). Use
 * cases throw {@link DomainError}s instead. `onError` turns both (and anything else) into the one
 * JSON shape: `{ error, code, details?, request_id }`.
 */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "ApiError";
    this.status = ERROR_STATUS[code];
    this.code = code;
    this.details = details;
  }
}

/** The validation hook of every route: a zod failure becomes a 400 that names each bad field. */
export function validationHook(result: { success: true } | { success: false; error: z.ZodError }) {
  if (result.success) return;
  for (const issue of result.error.issues) {
    const what = issue.code === "custom" ? issue.params?.[NOT_FOUND_PARAM] : undefined;
    if (typeof what === "string") throw new NotFoundError(what);
  }
  const issues = result.error.issues.map((issue) => ({
    field: issue.path.join(".") || "(body)",
    message: issue.message,
  }));
  const summary = issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ");
  throw new ApiError("invalid_request", `Invalid request: ${summary}`, { issues });
}

/** The error body: `{ error, code, …details, request_id }`, with the code's status (or Hono's own). */
export function errorAnswer(
  c: Context<AppEnv>,
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
  status: ContentfulStatusCode = ERROR_STATUS[code],
) {
  return c.json({ error: message, code, ...details, request_id: c.get("requestId") }, status);
}

/** `app.onError`: the only place an error becomes a response. */
export function errorResponse(error: Error, c: Context<AppEnv>) {
  if (error instanceof ApiError || error instanceof DomainError || error instanceof ProofRejectedError) {
    const details = error instanceof ProofRejectedError ? undefined : error.details;
    if (isErrorCode(error.code)) return errorAnswer(c, error.code, error.message, details);
    // A code thrown that the table lacks: a bug (error-codes.test.ts reads the source for them).
    c.get("logger")?.error({ err: error }, "error code missing from http/error-codes.ts");
    return c.json({ error: error.message, code: error.code, ...details, request_id: c.get("requestId") }, 500);
  }
  if (error instanceof HTTPException) {
    // Hono's own: malformed JSON (400), body too large (413), ...
    const status = error.status as ContentfulStatusCode;
    const code = status === 413 ? "payload_too_large" : status === 400 ? "bad_request" : "http_error";
    return errorAnswer(c, code, error.message || "Bad request", undefined, status);
  }
  if (error.message === "timeout exceeded when trying to connect") {
    // pg's pool had no connection to give within its timeout: overloaded, not broken.
    c.get("logger")?.warn({ err: error }, "database pool exhausted");
    c.header("Retry-After", "1");
    return errorAnswer(c, "busy", "The service is busy; retry shortly");
  }
  // Before the database's check: a node refusing connections is no database error.
  if (isTransportError(error)) {
    // The node did not answer (down, failing or too slow): nothing here is wrong, retry shortly.
    c.get("logger")?.warn({ err: error }, "chain unavailable");
    c.header("Retry-After", "2");
    return errorAnswer(c, "chain_unavailable", "The chain's node is not answering; retry shortly");
  }
  if (isDatabaseUnreachable(error)) {
    c.get("logger")?.warn({ err: error }, "database unavailable");
    c.header("Retry-After", "2");
    return errorAnswer(c, "database_unavailable", "The database is not answering; retry shortly");
  }
  c.get("logger")?.error({ err: error }, "unhandled error");
  return errorAnswer(c, "internal", "Internal server error");
}

/** Socket errors of a connection to Postgres that is refused, reset or gone. */
const UNREACHABLE_SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTCONN",
  "EHOSTUNREACH",
]);

/**
 * Postgres did not answer in time, refused or dropped the connection, or is (re)starting: SQLSTATE
 * class 08 (connection exception) and 57P01–57P03 (shut down by the operator, by a crash of
 * another backend, or not yet accepting connections while it recovers). Exported for its test.
 */
export function isDatabaseUnreachable(error: Error): boolean {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && (UNREACHABLE_SOCKET_CODES.has(code) || /^(08...|57P0[123])$/.test(code)))
      return true;
    if (/Query read timeout|Connection terminated|connection error and is not queryable/i.test(cause.message))
      return true;
  }
  return false;
}
