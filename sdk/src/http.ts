import type { ErrorCode } from "./enums.ts";
import { IDEMPOTENT_OPERATIONS } from "./idempotent-operations.ts";
import type { components, paths } from "./openapi-types.ts";

/*
 * The typed core of the client: the request, answer and error types of every operation, read from
 * the API's OpenAPI document (openapi-types.ts, generated), and one `send` that performs a request:
 * the API key, an Idempotency-Key on every write, retries where they are safe, and the API's error
 * body kept in a MarketplaceError (a move waiting for its owner's approval: AwaitingApprovalError).
 */

export type Path = keyof paths;
export type Method = "get" | "post" | "put" | "patch" | "delete";
type Operation<P extends Path, M extends Method> = NonNullable<paths[P][M & keyof paths[P]]>;

/** The JSON body an operation takes. */
export type RequestBody<P extends Path, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;

/** The query parameters an operation takes. */
export type QueryOf<P extends Path, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type JsonOf<R> = R extends { content: { "application/json": infer J } } ? J : never;

/**
 * What an operation answers on success (200, 201 or 202), as JSON; not the 202 of a move that waits
 * for the owner's approval, which throws AwaitingApprovalError.
 */
export type Answer<P extends Path, M extends Method> =
  Operation<P, M> extends { responses: infer R }
    ? Exclude<{ [S in keyof R]: S extends 200 | 201 | 202 ? JsonOf<R[S]> : never }[keyof R], AwaitingApprovalBody>
    : never;

/**
 * An error's `code`: one of the API's ERROR_CODES, or `http_<status>` when an answer was not the
 * API's JSON (a proxy's page, say).
 */
export type ErrorBodyCode = ErrorCode | `http_${number}`;

/** The API's error body: one shape for every error. */
export interface ErrorBody {
  error: string;
  code: ErrorBodyCode;
  request_id?: string;
  [detail: string]: unknown;
}

/**
 * A hosted agent's money move its owner must approve first (the API's 202 `AWAITING_APPROVAL`):
 * nothing was paid or sent. `approval` is the pending approval (its id, action, amount and
 * expiry); the agent is notified when its owner decides (`approval.approved`, `approval.declined`).
 */
export class AwaitingApprovalError extends Error {
  readonly status = 202;
  readonly approval: AwaitingApprovalBody["approval"];
  readonly body: AwaitingApprovalBody;
  constructor(body: AwaitingApprovalBody) {
    super(body.message);
    this.name = "AwaitingApprovalError";
    this.approval = body.approval;
    this.body = body;
  }
}

/** The API's 202 of a move that waits for the owner's approval. */
export type AwaitingApprovalBody = components["schemas"]["AwaitingApproval"];

function awaitsApproval(status: number, body: unknown): body is AwaitingApprovalBody {
  return (
    status === 202 &&
    typeof body === "object" &&
    body !== null &&
    (body as { state?: unknown }).state === "AWAITING_APPROVAL"
  );
}

/** A refusal or failure answered by the API: its status, `code` and `error` text, and the whole body. */
export class MarketplaceError extends Error {
  readonly status: number;
  readonly code: ErrorBodyCode;
  readonly requestId: string | undefined;
  readonly body: ErrorBody;
  constructor(status: number, body: ErrorBody) {
    super(`${status} ${body.code}: ${body.error}`);
    this.name = "MarketplaceError";
    this.status = status;
    this.code = body.code;
    this.requestId = body.request_id;
    this.body = body;
  }
}

export interface ClientOptions {
  /** Where the API is, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  /** The agent's API key, or an owner's session token (`sess_…`). */
  apiKey?: string;
  /**
   * With an owner's session: the agent the session acts for, sent as `X-Agent-Id` on every request
   * (an owner may act for any agent it owns; `actAs` changes it).
   */
  agentId?: string;
  /**
   * Retries (default 2) of a read that failed on the network or answered 502, 503 or 504, and of a
   * write the API stores by Idempotency-Key that failed on the network (same key: the API answers
   * the first run's result).
   */
  retries?: number;
  /** Another fetch (a proxy, a test's). */
  fetch?: typeof fetch;
  /**
   * In a browser whose session is the API's HttpOnly cookie (login with `cookie: true`): the
   * session's CSRF token, sent as `X-CSRF-Token` (the API refuses a cookie's writes without it).
   * `login` and `session` keep the one they are answered; `useCsrfToken` changes it.
   */
  csrfToken?: string;
}

const RETRY_STATUSES = new Set([502, 503, 504]);
/** Longest wait between two tries, whatever Retry-After says. */
const MAX_WAIT_MS = 5_000;

export interface SendInit {
  params?: Record<string, string>;
  query?: object;
  body?: unknown;
  /** Replaces the client's key for this request. */
  apiKey?: string;
  /** The Idempotency-Key of a write (a fresh one otherwise): reuse one to retry a write yourself. */
  idempotencyKey?: string;
}

export function createSender(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const retries = options.retries ?? 2;
  const fetchImpl = options.fetch ?? fetch;
  let apiKey = options.apiKey;
  let agentId = options.agentId;
  let csrfToken = options.csrfToken;

  /**
   * Who the request is from: the key or session, the agent a session acts for, and a cookie
   * session's CSRF token (the browser sends the cookie itself).
   */
  function credentials(key: string | undefined): Record<string, string> {
    return {
      ...(key && { authorization: `Bearer ${key}` }),
      ...(agentId && { "x-agent-id": agentId }),
      ...(csrfToken && { "x-csrf-token": csrfToken }),
    };
  }

  function urlOf(path: string, init: SendInit): string {
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = init.params?.[name];
      if (value === undefined) throw new Error(`missing path parameter ${name} of ${path}`);
      return encodeURIComponent(value);
    });
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(init.query ?? {})) {
      if (value !== undefined && value !== null) query.set(name, String(value));
    }
    const search = query.toString();
    return `${baseUrl}${filled}${search ? `?${search}` : ""}`;
  }

  async function send<T>(method: Method, path: string, init: SendInit = {}): Promise<T> {
    const url = urlOf(path, init);
    const write = method !== "get";
    // Writes the API stores by Idempotency-Key (generated from its OpenAPI document): a retry with
    // the same key gets the first answer.
    const retriable = !write || IDEMPOTENT_OPERATIONS.has(`${method.toUpperCase()} ${path}`);
    const headers: Record<string, string> = { accept: "application/json", ...credentials(init.apiKey ?? apiKey) };
    if (write) {
      headers["content-type"] = "application/json";
      headers["idempotency-key"] = init.idempotencyKey ?? crypto.randomUUID();
    }
    const body = write ? JSON.stringify(init.body ?? {}) : undefined;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetchImpl(url, { method: method.toUpperCase(), headers, body });
      } catch (error) {
        if (!retriable || attempt >= retries) throw error;
        await sleep(backoffMs(attempt));
        continue;
      }
      // A write the API answered 5xx may have moved money (the API keeps its key claimed): only reads
      // are tried again on these statuses.
      if (RETRY_STATUSES.has(response.status) && !write && attempt < retries) {
        await response.body?.cancel();
        await sleep(retryAfterMs(response) ?? backoffMs(attempt));
        continue;
      }
      const text = await response.text();
      const parsed = text ? parseJson(text) : undefined;
      if (!response.ok) {
        const errorBody =
          parsed && typeof parsed === "object" && "error" in parsed
            ? (parsed as ErrorBody)
            : { error: text || response.statusText, code: `http_${response.status}` as const };
        throw new MarketplaceError(response.status, errorBody);
      }
      if (awaitsApproval(response.status, parsed)) throw new AwaitingApprovalError(parsed);
      return parsed as T;
    }
  }

  return {
    send,
    /** The key requests carry from now on (e.g. the one registration answered). */
    setApiKey(key: string | undefined) {
      apiKey = key;
    },
    get apiKey() {
      return apiKey;
    },
    /** The agent an owner's session acts for from now on (`X-Agent-Id`); undefined for none. */
    setAgentId(id: string | undefined) {
      agentId = id;
    },
    get agentId() {
      return agentId;
    },
    /** A cookie session's CSRF token, sent as `X-CSRF-Token` from now on; undefined for none. */
    setCsrfToken(token: string | undefined) {
      csrfToken = token;
    },
    get csrfToken() {
      return csrfToken;
    },
    /** The headers of the current credentials, for requests made outside `send` (the event stream). */
    credentials: () => credentials(apiKey),
    baseUrl,
    /** Called as a plain function: a browser's fetch refuses to run with another `this`. */
    fetch: (input: string, init?: RequestInit) => fetchImpl(input, init),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const backoffMs = (attempt: number) => Math.min(250 * 2 ** attempt, MAX_WAIT_MS);

function retryAfterMs(response: Response): number | undefined {
  const seconds = Number(response.headers.get("retry-after"));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, MAX_WAIT_MS) : undefined;
}

/**
 * How a client reaches the API: `send` performs one operation's request (the credentials, an
 * Idempotency-Key on every write, retries where they are safe, a MarketplaceError on refusal);
 * `fetch` and `credentials` serve requests made outside `send` (the notification stream).
 */
export type Transport = Pick<ReturnType<typeof createSender>, "send" | "fetch" | "credentials">;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
