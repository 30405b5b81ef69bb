import { BlockList, isIP } from "node:net";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

/** Where clients reach the API: the configured public base URL, else this request's origin. */
export function publicBaseUrl(c: Context, configured: string | undefined): string {
  return configured ?? new URL(c.req.url).origin;
}

/** The client's IP: the socket's, or the first X-Forwarded-For hop behind a trusted proxy. */
export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  // app.request() in tests may have no socket.
  return connectionAddress(c) ?? "local";
}

/**
 * The address at the other end of the request's connection: the Node server's socket. Undefined
 * without one: a request the app was handed in process (app.request, app.fetch) without the Node
 * server's bindings, which tests give as `{ incoming: { socket: { remoteAddress } } }`.
 */
export function connectionAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/** 127.0.0.0/8 and ::1; BlockList also matches their IPv4-mapped forms (::ffff:127.0.0.1). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** Whether `address` is a loopback address; anything that is not an IP address is not. */
export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** The bare address of a forwarded hop: `1.2.3.4:80`, `"[::1]:4711"` (Forwarded) or `::1`. */
function addressOfHop(hop: string): string {
  const value = hop.trim().replace(/^"(.*)"$/, "$1");
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed?.[1]) return bracketed[1];
  return /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(value)?.[1] ?? value;
}

/** Every client address proxies on the way named: X-Forwarded-For, Forwarded's `for=`, X-Real-IP. */
function forwardedAddresses(c: Context): string[] {
  const hops = (c.req.header("x-forwarded-for") ?? "").split(",").filter((hop) => hop.trim() !== "");
  for (const element of (c.req.header("forwarded") ?? "").split(/[,;]/)) {
    const [name, value] = element.split("=", 2);
    if (name?.trim().toLowerCase() === "for" && value !== undefined) hops.push(value);
  }
  const realIp = c.req.header("x-real-ip");
  if (realIp) hops.push(realIp);
  return hops.map(addressOfHop);
}

/**
 * Whether the request comes from this machine: its connection is a loopback one, and so is every
 * address a proxy forwarded, trusted (TRUST_PROXY) or not. A forwarded address can only take the
 * answer away: behind a proxy on this machine the client is the one it forwards (first or last
 * hop alike, so a client cannot name itself 127.0.0.1 in front of its real address), and a proxy
 * on another machine is not this machine. Without a connection (see {@link connectionAddress})
 * there is no client to place: not this machine.
 */
export function isLoopbackClient(c: Context): boolean {
  const connection = connectionAddress(c);
  if (connection === undefined || !isLoopbackAddress(connection)) return false;
  return forwardedAddresses(c).every(isLoopbackAddress);
}

/**
 * The origin the client addressed: this request's URL, or behind a trusted proxy the
 * X-Forwarded-Proto and X-Forwarded-Host it passes on (a TLS-terminating proxy makes the URL http).
 */
export function requestOrigin(c: Context, trustProxy: boolean): string {
  const url = new URL(c.req.url);
  if (!trustProxy) return url.origin;
  const proto = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim();
  const host = c.req.header("x-forwarded-host")?.split(",")[0]?.trim();
  return `${proto || url.protocol.replace(/:$/, "")}://${host || url.host}`;
}

/**
 * Whether a browser's `Origin` (absent for same-origin GETs and for programs) is this service's
 * own: the request's origin, or the configured public base URL's.
 */
export function isOwnOrigin(c: Context, config: { trustProxy: boolean; publicBaseUrl?: string }): boolean {
  const origin = c.req.header("origin");
  if (origin === undefined) return true;
  const own = [requestOrigin(c, config.trustProxy)];
  if (config.publicBaseUrl) own.push(new URL(config.publicBaseUrl).origin);
  return own.includes(origin);
}
