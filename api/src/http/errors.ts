import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { isTransportError } from "../chain/transport-error.ts";
import type { AppEnv } from "./env.ts";

/**
 * The one error type handlers throw. `onError` turns it (and anything else) into the one JSON
 * shape: `{ error, code, details?, request_id }`.
 */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly details?: Record<string, unknown>;

  constructor(status: ContentfulStatusCode, code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new ApiError(400, "bad_request", message, details);
export const unauthorized = (message = "Missing or invalid API key") => new ApiError(401, "unauthorized", message);
export const forbidden = (message = "Not allowed for this API key") => new ApiError(403, "forbidden", message);
export const notFound = (what: string) => new ApiError(404, "not_found", `${what} not found`);
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new ApiError(409, "conflict", message, details);

/** The validation hook of every route: a zod failure becomes a 400 that names each bad field. */
export function validationHook(result: { success: true } | { success: false; error: z.ZodError }) {
  if (result.success) return;
  const issues = result.error.issues.map((issue) => ({
    field: issue.path.join(".") || "(body)",
    message: issue.message,
  }));
  const summary = issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ");
  throw new ApiError(400, "invalid_request", `Invalid request: ${summary}`, { issues });
}

/** `app.onError`: the only place an error becomes a response. */
export function errorResponse(error: Error, c: Context<AppEnv>) {
  const requestId = c.get("requestId");
  if (error instanceof ApiError) {
    return c.json({ error: error.message, code: error.code, ...error.details, request_id: requestId }, error.status);
  }
  if (error instanceof HTTPException) {
    // Hono's own: malformed JSON (400), body too large (413), ...
    const status = error.status as ContentfulStatusCode;
    const code = status === 413 ? "payload_too_large" : status === 400 ? "bad_request" : "http_error";
    return c.json({ error: error.message || "Bad request", code, request_id: requestId }, status);
  }
  if (error.message === "timeout exceeded when trying to connect") {
    // pg's pool had no connection to give within its timeout: overloaded, not broken.
    c.get("logger")?.warn({ err: error }, "database pool exhausted");
    c.header("Retry-After", "1");
    return c.json({ error: "The service is busy; retry shortly", code: "busy", request_id: requestId }, 503);
  }
  // Before the database's check: a node refusing connections is no database error.
  if (isTransportError(error)) {
    // The node did not answer (down, failing or too slow): nothing here is wrong, retry shortly.
    c.get("logger")?.warn({ err: error }, "chain unavailable");
    c.header("Retry-After", "2");
    return c.json(
      { error: "The chain's node is not answering; retry shortly", code: "chain_unavailable", request_id: requestId },
      503,
    );
  }
  if (isDatabaseUnreachable(error)) {
    c.get("logger")?.warn({ err: error }, "database unavailable");
    c.header("Retry-After", "2");
    return c.json(
      { error: "The database is not answering; retry shortly", code: "database_unavailable", request_id: requestId },
      503,
    );
  }
  c.get("logger")?.error({ err: error }, "unhandled error");
  return c.json({ error: "Internal server error", code: "internal", request_id: requestId }, 500);
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
