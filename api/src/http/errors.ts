import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { ProofRejectedError } from "../chain/errors.ts";
import { isTransportError } from "../chain/transport-error.ts";
import {
  ConflictError,
  DomainError,
  ForbiddenError,
  IndexerBehindError,
  InsufficientBalanceError,
  InvalidInputError,
  NotFoundError,
  RegistryRevertedError,
  UnauthenticatedError,
} from "../domain/shared/errors.ts";
import type { AppEnv } from "./env.ts";
import { NOT_FOUND_PARAM } from "./params.ts";

/**
 * An HTTP-level refusal made by the HTTP layer itself (body too large, idempotency key reused,
 * rate limit, invalid request shape). Use cases throw {@link DomainError}s instead. `onError`
 * turns both (and anything else) into the one JSON shape: `{ error, code, details?, request_id }`.
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

/**
 * Every kind of domain refusal and its HTTP status, in one place. The first match wins, so a
 * subclass listed before its parent may answer otherwise (none does today).
 */
const STATUS_OF: ReadonlyArray<readonly [abstract new (...args: never[]) => DomainError, ContentfulStatusCode]> = [
  [InvalidInputError, 400],
  [UnauthenticatedError, 401],
  [InsufficientBalanceError, 402],
  [ForbiddenError, 403],
  [NotFoundError, 404],
  [ConflictError, 409], // also EscrowRefusedError, TransactionRevertedError
  [RegistryRevertedError, 502],
  [IndexerBehindError, 503],
];

/** The status a domain error is answered with (500 for a kind the table does not know). */
export function statusOf(error: DomainError): ContentfulStatusCode {
  return STATUS_OF.find(([kind]) => error instanceof kind)?.[1] ?? 500;
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
  throw new ApiError(400, "invalid_request", `Invalid request: ${summary}`, { issues });
}

/** `app.onError`: the only place an error becomes a response. */
export function errorResponse(error: Error, c: Context<AppEnv>) {
  const requestId = c.get("requestId");
  if (error instanceof ApiError) {
    return c.json({ error: error.message, code: error.code, ...error.details, request_id: requestId }, error.status);
  }
  if (error instanceof DomainError) {
    return c.json({ error: error.message, code: error.code, ...error.details, request_id: requestId }, statusOf(error));
  }
  if (error instanceof ProofRejectedError) {
    return c.json({ error: error.message, code: error.code, request_id: requestId }, 400);
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
