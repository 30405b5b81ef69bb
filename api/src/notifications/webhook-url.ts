import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/*
 * Where webhooks may go. Outside local development a webhook URL must reach the public internet:
 * a URL whose host is, or resolves to, a loopback, private, link-local or otherwise reserved
 * address would let anyone make the service call into its own network (SSRF). The check runs when
 * the URL is set and again before every delivery, since a name may resolve elsewhere later.
 */

const notPublic = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24], // documentation
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  notPublic.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["64:ff9b::", 96], // NAT64
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["2001:db8::", 32], // documentation
] as const) {
  notPublic.addSubnet(network, prefix, "ipv6");
}

/** Whether `address` (IPv4 or IPv6 text) is a public internet address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !notPublic.check(address, "ipv4");
  if (family !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return isPublicAddress(mapped[1]);
  return !notPublic.check(address, "ipv6");
}

export class WebhookUrlError extends Error {}

/**
 * Checks that `url` may receive webhooks; throws {@link WebhookUrlError} with the reason. With
 * `allowPrivateAddresses` (local development) any http(s) URL passes.
 */
export async function checkWebhookUrl(url: string, allowPrivateAddresses: boolean): Promise<void> {
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
  if (allowPrivateAddresses) return;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      throw new WebhookUrlError(`webhook_url host ${host} does not resolve`);
    }
  }
  const refused = addresses.find((address) => !isPublicAddress(address));
  if (refused !== undefined) {
    throw new WebhookUrlError(`webhook_url must reach a public address; ${host} is ${refused}`);
  }
}
