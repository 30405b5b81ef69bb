import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { performance } from "node:perf_hooks";
import { resolveWebhookTarget, type WebhookLookup, type WebhookTarget, WebhookUrlError } from "./webhook-url.ts";

/*
 * One POST of a webhook: the URL is checked and its host resolved once (webhook-url.ts), and the
 * connection goes to that checked address (no second lookup); TLS and the Host header still name
 * the URL's host. Redirects are never followed. The whole of it, resolution included, has
 * `timeoutMs`.
 */

/** What a receiver did with a delivery. */
export interface WebhookAnswer {
  /** It answered 2xx. */
  delivered: boolean;
  /** Its HTTP status; absent when it never answered or the target was refused. */
  status?: number;
  /** Why it was not delivered. */
  error?: string;
  /**
   * The target was refused (not a public address, or no address at all): nothing was sent, and
   * `error` is only "target refused", with no status or timing, so the log cannot map a network.
   */
  refused?: boolean;
  /** From the start of the resolution to the answer; absent when the target was refused. */
  durationMs?: number;
}

export const TARGET_REFUSED = "target refused";

export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  allowPrivateAddresses: boolean;
  timeoutMs: number;
  lookup?: WebhookLookup;
  /** Aborts the attempt (the process is stopping): answers `error: "interrupted"`. */
  signal?: AbortSignal;
}

export async function postWebhook(post: WebhookPost): Promise<WebhookAnswer> {
  const started = performance.now();
  const deadline = AbortSignal.timeout(post.timeoutMs);
  const signal = post.signal ? AbortSignal.any([deadline, post.signal]) : deadline;
  const elapsed = () => Math.round(performance.now() - started);
  let target: WebhookTarget;
  try {
    target = await abortable(resolveWebhookTarget(post.url, post.allowPrivateAddresses, post.lookup), signal);
  } catch (error) {
    if (error instanceof WebhookUrlError) {
      return error.refusedTarget ? { delivered: false, refused: true, error: TARGET_REFUSED } : failed(error);
    }
    return { ...failed(error, signal, post), durationMs: elapsed() };
  }
  try {
    const status = await postToTarget(target, post, signal);
    const durationMs = elapsed();
    return status >= 200 && status < 300
      ? { delivered: true, status, durationMs }
      : { delivered: false, status, error: `HTTP ${status}`, durationMs };
  } catch (error) {
    return { ...failed(error, signal, post), durationMs: elapsed() };
  }
}

function failed(error: unknown, signal?: AbortSignal, post?: WebhookPost): WebhookAnswer {
  if (signal?.aborted) {
    return { delivered: false, error: post?.signal?.aborted ? "interrupted" : `timed out after ${post?.timeoutMs} ms` };
  }
  return { delivered: false, error: error instanceof Error ? error.message : String(error) };
}

/** `promise`, or a rejection as soon as `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Sends the POST to the target's checked address (the URL's host is not resolved again); resolves
 * with the answer's status as soon as its head arrives.
 */
export function postToTarget(
  target: WebhookTarget,
  post: Pick<WebhookPost, "body" | "headers">,
  signal: AbortSignal,
): Promise<number> {
  const { url, address } = target;
  // The checked address, whatever family the connection asks for: no second resolution.
  const pinned: LookupFunction | undefined = address
    ? (_hostname, options, callback) => {
        if (options.all) callback(null, [address]);
        else callback(null, address.address, address.family);
      }
    : undefined;
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<number>((resolve, reject) => {
    const outgoing = request(
      {
        hostname: target.host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers: { ...post.headers, "content-length": String(Buffer.byteLength(post.body)) },
        // A connection of its own: none is reused from an earlier resolution.
        agent: false,
        signal,
        ...(pinned && { lookup: pinned }),
      },
      (incoming) => {
        resolve(incoming.statusCode ?? 0);
        // The body is not read: a receiver's answer is its status.
        incoming.destroy();
      },
    );
    outgoing.on("error", reject);
    outgoing.end(post.body);
  });
}
