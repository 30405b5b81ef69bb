import { lookup as systemLookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/*
 * Where webhooks may go. Outside local development a webhook URL must reach the public internet:
 * a URL whose host is, or resolves to, a loopback, private, link-local or otherwise reserved
 * address would let anyone make the service call into its own network (SSRF). The URL is checked
 * when it is set and again before every delivery, since a name may resolve elsewhere later; a
 * delivery then connects to the very address that was checked (webhook-post.ts), so a name that
 * answers a public address to the check and a private one to the connection (DNS rebinding) gets
 * nowhere.
 */

/** Resolves a host name to every address it has (the system resolver unless a test gives one). */
export type WebhookLookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemWebhookLookup: WebhookLookup = (hostname) => systemLookup(hostname, { all: true, verbatim: true });

/** Ranges no webhook may reach, each with the words a refusal names it by; the first match names it. */
function rangesOf(family: "ipv4" | "ipv6", ranges: [label: string, network: string, prefix: number][]) {
  return ranges.map(([label, network, prefix]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { label, list };
  });
}

const REFUSED_V4 = rangesOf("ipv4", [
  ["an unspecified (0.0.0.0/8)", "0.0.0.0", 8],
  ["a private (10.0.0.0/8)", "10.0.0.0", 8],
  ["a carrier-grade NAT (100.64.0.0/10)", "100.64.0.0", 10],
  ["a loopback (127.0.0.0/8)", "127.0.0.0", 8],
  ["a link-local (169.254.0.0/16)", "169.254.0.0", 16],
  ["a private (172.16.0.0/12)", "172.16.0.0", 12],
  ["a reserved (192.0.0.0/24)", "192.0.0.0", 24],
  ["a documentation (192.0.2.0/24)", "192.0.2.0", 24],
  ["a 6to4 relay (192.88.99.0/24)", "192.88.99.0", 24],
  ["a private (192.168.0.0/16)", "192.168.0.0", 16],
  ["a benchmarking (198.18.0.0/15)", "198.18.0.0", 15],
  ["a documentation (198.51.100.0/24)", "198.51.100.0", 24],
  ["a documentation (203.0.113.0/24)", "203.0.113.0", 24],
  ["a multicast (224.0.0.0/4)", "224.0.0.0", 4],
  ["a broadcast (255.255.255.255)", "255.255.255.255", 32],
  ["a reserved (240.0.0.0/4)", "240.0.0.0", 4],
]);

/**
 * IPv6 is refused unless it is global unicast (2000::/3) outside these; the forms that carry an
 * IPv4 address are judged separately (ipv6Verdict).
 */
const REFUSED_V6 = rangesOf("ipv6", [
  ["a 6to4 (2002::/16)", "2002::", 16],
  ["a Teredo (2001::/32)", "2001::", 32],
  ["a documentation (2001:db8::/32)", "2001:db8::", 32],
  ["a reserved (2001::/23)", "2001::", 23],
  ["a documentation (3fff::/20)", "3fff::", 20],
]);
const NOT_V6_RANGES = rangesOf("ipv6", [
  ["an unspecified (::)", "::", 128],
  ["a loopback (::1)", "::1", 128],
  ["an IPv4-compatible (::/96)", "::", 96],
  ["a NAT64 (64:ff9b::/96)", "64:ff9b::", 96],
  ["a local NAT64 (64:ff9b:1::/48)", "64:ff9b:1::", 48],
  ["a discard-only (100::/64)", "100::", 64],
  ["a unique-local (fc00::/7)", "fc00::", 7],
  ["a link-local (fe80::/10)", "fe80::", 10],
  ["a site-local (fec0::/10)", "fec0::", 10],
  ["a multicast (ff00::/8)", "ff00::", 8],
]);
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet("2000::", 3, "ipv6");

/**
 * The eight 16-bit words of an IPv6 address, or undefined if it is not one. Parsed by the WHATWG
 * URL host parser (the one `new URL` applies to a webhook URL), which accepts every textual form,
 * dotted IPv4 tails included, and answers the canonical compressed one.
 */
function ipv6Words(address: string): number[] | undefined {
  let canonical: string;
  try {
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const [head = "", tail] = canonical.split("::");
  const words = (part: string) => (part === "" ? [] : part.split(":").map((word) => Number.parseInt(word, 16)));
  const before = words(head);
  const after = tail === undefined ? [] : words(tail);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

const dotted = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

function ipv4Verdict(address: string): string | undefined {
  return REFUSED_V4.find((range) => range.list.check(address, "ipv4"))?.label;
}

function ipv6Verdict(address: string): string | undefined {
  const words = ipv6Words(address);
  if (!words) return "an unparsable";
  const [w0, w1, w2, w3, w4, w5, w6 = 0, w7 = 0] = words;
  const zeroPrefix = w0 === 0 && w1 === 0 && w2 === 0 && w3 === 0;
  // IPv4-mapped (::ffff:a.b.c.d) reaches that IPv4 address: judged as it.
  if (zeroPrefix && w4 === 0 && w5 === 0xffff) {
    const embedded = ipv4Verdict(dotted(w6, w7));
    return embedded && `an IPv4-mapped ${embedded.replace(/^an? /, "")}`;
  }
  // IPv4-translated (::ffff:0:a.b.c.d, SIIT): never a webhook's address.
  if (zeroPrefix && w4 === 0xffff && w5 === 0) return "an IPv4-translated (::ffff:0:0:0/96)";
  const family = "ipv6";
  const outside = NOT_V6_RANGES.find((range) => range.list.check(address, family));
  if (outside) return outside.label;
  if (!GLOBAL_UNICAST_V6.check(address, family)) return "a reserved (outside 2000::/3)";
  return REFUSED_V6.find((range) => range.list.check(address, family))?.label;
}

/**
 * Why `address` (IPv4 or IPv6 text) may not receive webhooks, as "a loopback (127.0.0.0/8)" and
 * the like; undefined for a public internet address.
 */
export function refusedAddressReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return ipv4Verdict(address);
  if (family === 6) return ipv6Verdict(address);
  return "an unparsable";
}

/** Whether `address` (IPv4 or IPv6 text) is a public internet address. */
export function isPublicAddress(address: string): boolean {
  return refusedAddressReason(address) === undefined;
}

/** A URL that may not receive webhooks; the message says why. */
export class WebhookUrlError extends Error {
  /** The URL's host is or resolves to an address webhooks may not reach (not a malformed URL). */
  readonly refusedTarget: boolean;
  constructor(message: string, refusedTarget = false) {
    super(message);
    this.refusedTarget = refusedTarget;
  }
}

/** Where a delivery connects: the URL, and (unless private targets are allowed) the checked address. */
export interface WebhookTarget {
  url: URL;
  /** The host without IPv6 brackets: the name TLS and the Host header carry. */
  host: string;
  /** The address to connect to, checked; absent when private targets are allowed (any address goes). */
  address?: { address: string; family: 4 | 6 };
}

/** Checks the URL's form: http(s), no credentials. */
export function parseWebhookUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WebhookUrlError("webhook_url is not a URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new WebhookUrlError("webhook_url must be an http(s) URL");
  }
  if (parsed.username || parsed.password) throw new WebhookUrlError("webhook_url must not carry credentials");
  return parsed;
}

/**
 * Resolves `url` to the address a delivery connects to, once: every address the host resolves to
 * must be public, and the first is the one to use. Throws {@link WebhookUrlError} with the reason.
 * With `allowPrivateAddresses` (local development) any http(s) URL passes and is not resolved here.
 */
export async function resolveWebhookTarget(
  url: string,
  allowPrivateAddresses: boolean,
  lookup: WebhookLookup = systemWebhookLookup,
): Promise<WebhookTarget> {
  const parsed = parseWebhookUrl(url);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  if (allowPrivateAddresses) return { url: parsed, host };
  if (isIP(host)) {
    const reason = refusedAddressReason(host);
    if (reason)
      throw new WebhookUrlError(`webhook_url must reach a public address; ${host} is ${reason} address`, true);
    return { url: parsed, host, address: { address: host, family: isIP(host) as 4 | 6 } };
  }
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(host);
  } catch {
    throw new WebhookUrlError(`webhook_url host ${host} does not resolve`, true);
  }
  if (addresses.length === 0) throw new WebhookUrlError(`webhook_url host ${host} does not resolve`, true);
  for (const { address } of addresses) {
    const reason = refusedAddressReason(address);
    // The address itself is not named: the answer would tell what a name means inside the network.
    if (reason) {
      throw new WebhookUrlError(`webhook_url must reach a public address; ${host} resolves to ${reason} address`, true);
    }
  }
  const [first] = addresses as [{ address: string; family: number }];
  return { url: parsed, host, address: { address: first.address, family: isIP(first.address) as 4 | 6 } };
}

/**
 * Checks that `url` may receive webhooks; throws {@link WebhookUrlError} with the reason. With
 * `allowPrivateAddresses` (local development) any http(s) URL passes.
 */
export async function checkWebhookUrl(
  url: string,
  allowPrivateAddresses: boolean,
  lookup: WebhookLookup = systemWebhookLookup,
): Promise<void> {
  await resolveWebhookTarget(url, allowPrivateAddresses, lookup);
}
