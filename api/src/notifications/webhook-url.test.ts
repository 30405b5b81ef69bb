import { createServer, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postToTarget, postWebhook } from "./webhook-post.ts";
import {
  checkWebhookUrl,
  isPublicAddress,
  refusedAddressReason,
  resolveWebhookTarget,
  type WebhookLookup,
  WebhookUrlError,
} from "./webhook-url.ts";

/*
 * Where webhooks may go when private targets are not allowed (every chain but the local one):
 * each refused form of address, as a URL and as a name's resolution, is refused with its reason
 * when set, and a delivery to a name that resolves to loopback is refused without a connection.
 * A delivery connects to the address that was checked, never to a second resolution.
 */

/** Every form of address a webhook may not reach, as URLs; each with the words its refusal names. */
const REFUSED_URLS: [url: string, reason: RegExp][] = [
  ["http://127.0.0.1:8080/hook", /loopback/],
  ["http://127.8.9.10/hook", /loopback/],
  ["http://2130706433/hook", /loopback/], // 127.0.0.1 as one number
  ["http://0x7f.1/hook", /loopback/],
  ["http://127.1/hook", /loopback/],
  ["http://0.0.0.0/hook", /unspecified/],
  ["http://0/hook", /unspecified/],
  ["http://0.1.2.3/hook", /unspecified/],
  ["http://10.1.2.3/hook", /private/],
  ["http://172.16.5.4/hook", /private/],
  ["http://172.31.255.254/hook", /private/],
  ["http://192.168.1.1/hook", /private/],
  ["http://100.64.0.1/hook", /carrier-grade NAT/],
  ["http://100.127.255.254/hook", /carrier-grade NAT/],
  ["http://169.254.169.254/latest/meta-data", /link-local/],
  ["http://192.0.0.8/hook", /reserved/],
  ["http://192.0.2.10/hook", /documentation/],
  ["http://198.51.100.7/hook", /documentation/],
  ["http://203.0.113.200/hook", /documentation/],
  ["http://198.18.0.1/hook", /benchmarking/],
  ["http://198.19.255.1/hook", /benchmarking/],
  ["http://224.0.0.1/hook", /multicast/],
  ["http://239.255.255.250/hook", /multicast/],
  ["http://240.0.0.1/hook", /reserved/],
  ["http://255.255.255.255/hook", /broadcast/],
  ["http://[::]/hook", /unspecified/],
  ["http://[::1]/hook", /loopback/],
  ["http://[0:0:0:0:0:0:0:1]:8080/hook", /loopback/],
  ["http://[fe80::1]/hook", /link-local/],
  ["http://[febf::1]/hook", /link-local/],
  ["http://[fc00::1]/hook", /unique-local/],
  ["http://[fd12:3456::1]/hook", /unique-local/],
  ["http://[fec0::1]/hook", /site-local/],
  ["http://[ff02::1]/hook", /multicast/],
  ["http://[2001:db8::1]/hook", /documentation/],
  ["http://[3fff::1]/hook", /documentation/],
  ["http://[100::1]/hook", /discard-only/],
  // IPv4-mapped forms of refused IPv4 addresses, however written.
  ["http://[::ffff:127.0.0.1]/hook", /IPv4-mapped loopback/],
  ["http://[::ffff:7f00:1]/hook", /IPv4-mapped loopback/],
  ["http://[0:0:0:0:0:ffff:7f00:1]/hook", /IPv4-mapped loopback/],
  ["http://[::ffff:10.0.0.1]/hook", /IPv4-mapped private/],
  ["http://[::ffff:169.254.169.254]/hook", /IPv4-mapped link-local/],
  ["http://[::ffff:a9fe:a9fe]/hook", /IPv4-mapped link-local/],
  // IPv4-translated (::ffff:0:a.b.c.d) and IPv4-compatible (::a.b.c.d).
  ["http://[::ffff:0:7f00:1]/hook", /IPv4-translated/],
  ["http://[::ffff:0:127.0.0.1]/hook", /IPv4-translated/],
  ["http://[::127.0.0.1]/hook", /IPv4-compatible/],
  ["http://[::7f00:1]/hook", /IPv4-compatible/],
  ["http://[::10.0.0.1]/hook", /IPv4-compatible/],
  ["http://[::8.8.8.8]/hook", /IPv4-compatible/],
  // 6to4 (2002:a.b.c.d::/48), NAT64 and Teredo carry IPv4 addresses too.
  ["http://[2002:7f00:1::]/hook", /6to4/],
  ["http://[2002:a00:1::1]/hook", /6to4/],
  ["http://[2002:808:808::1]/hook", /6to4/],
  ["http://[64:ff9b::7f00:1]/hook", /NAT64/],
  ["http://[64:ff9b::127.0.0.1]/hook", /NAT64/],
  ["http://[64:ff9b::808:808]/hook", /NAT64/],
  ["http://[64:ff9b:1::a00:1]/hook", /local NAT64/],
  ["http://[2001::1]/hook", /Teredo/],
  ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook", /Teredo/],
  ["http://[2001:2::1]/hook", /reserved/],
  // Not global unicast at all.
  ["http://[4000::1]/hook", /reserved/],
];

describe("webhook URL policy", () => {
  it("refuses every loopback, private, reserved, embedded-IPv4 and special-purpose form, naming the reason", async () => {
    for (const [url, reason] of REFUSED_URLS) {
      const error = await checkWebhookUrl(url, false).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, url).toBeInstanceOf(WebhookUrlError);
      expect((error as WebhookUrlError).message, url).toMatch(/must reach a public address/);
      expect((error as WebhookUrlError).message, url).toMatch(reason);
    }
  });

  it("accepts public IPv4 and IPv6 addresses, an IPv4-mapped public one included", async () => {
    for (const url of [
      "https://8.8.8.8/hook",
      "http://93.184.216.34:8443/hook?x=1",
      "http://100.63.255.255/hook", // just below carrier-grade NAT
      "http://172.32.0.1/hook", // just above 172.16/12
      "http://[2606:4700:4700::1111]/hook",
      "http://[2a00:1450:4001:81c::200e]/hook",
      "http://[::ffff:8.8.8.8]/hook",
    ]) {
      await expect(checkWebhookUrl(url, false), url).resolves.toBeUndefined();
    }
    expect(isPublicAddress("8.8.8.8")).toBe(true);
    expect(isPublicAddress("not an address")).toBe(false);
    expect(refusedAddressReason("fe80::1%eth0")).toBeDefined();
  });

  it("in local development accepts loopback; never another scheme or credentials", async () => {
    await expect(checkWebhookUrl("http://127.0.0.1:3000/hook", true)).resolves.toBeUndefined();
    await expect(checkWebhookUrl("http://[::1]:3000/hook", true)).resolves.toBeUndefined();
    await expect(checkWebhookUrl("file:///etc/passwd", true)).rejects.toThrow(/http/);
    await expect(checkWebhookUrl("https://u:p@example.com/", true)).rejects.toThrow(/credentials/);
    await expect(checkWebhookUrl("http://[fe80::1%25eth0]/", true)).rejects.toThrow(/not a URL/);
  });

  it("a name is refused if any of its addresses is, without naming the address", async () => {
    const names: Record<string, string[]> = {
      "public.test": ["93.184.216.34", "2606:4700:4700::1111"],
      "mixed.test": ["93.184.216.34", "10.0.0.7"],
      "mapped.test": ["::ffff:192.168.0.1"],
      "sixtofour.test": ["2002:c0a8:1::1"],
    };
    const lookup: WebhookLookup = async (name) => {
      const addresses = names[name];
      if (!addresses) throw new Error(`ENOTFOUND ${name}`);
      return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    };
    await expect(checkWebhookUrl("https://public.test/hook", false, lookup)).resolves.toBeUndefined();
    const target = await resolveWebhookTarget("https://public.test/hook", false, lookup);
    expect(target.address).toEqual({ address: "93.184.216.34", family: 4 });
    expect(target.host).toBe("public.test");
    const mixed = checkWebhookUrl("https://mixed.test/hook", false, lookup);
    await expect(mixed).rejects.toThrow(/mixed\.test resolves to a private \(10\.0\.0\.0\/8\) address/);
    await expect(checkWebhookUrl("https://mixed.test/hook", false, lookup)).rejects.not.toThrow(/10\.0\.0\.7/);
    await expect(checkWebhookUrl("https://mapped.test/hook", false, lookup)).rejects.toThrow(/IPv4-mapped private/);
    await expect(checkWebhookUrl("https://sixtofour.test/hook", false, lookup)).rejects.toThrow(/6to4/);
    await expect(checkWebhookUrl("https://nowhere.test/hook", false, lookup)).rejects.toThrow(/does not resolve/);
    // The real resolver: localhost is loopback.
    await expect(checkWebhookUrl("http://localhost/hook", false)).rejects.toThrow(/localhost resolves to a loopback/);
  });
});

describe("a delivery's connection", () => {
  const requests: { headers: IncomingHttpHeaders; body: string }[] = [];
  let connections = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      requests.push({ headers: request.headers, body: Buffer.concat(chunks).toString() });
      response.writeHead(204).end();
    });
  });
  server.on("connection", () => connections++);
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (url: string, lookup?: WebhookLookup) =>
    postWebhook({
      url,
      body: "{}",
      headers: { "content-type": "application/json" },
      allowPrivateAddresses: false,
      timeoutMs: 2_000,
      lookup,
    });

  it("to a name that resolves to loopback is refused at delivery time: no connection, no status, no timing", async () => {
    const before = connections;
    // The system resolver's answer for localhost (127.0.0.1 or ::1).
    expect(await post(`http://localhost:${port}/hook`)).toEqual({
      delivered: false,
      refused: true,
      error: "target refused",
    });
    // A name that resolved to a public address when it was set and to loopback now (rebinding).
    const lookups: string[] = [];
    const rebound: WebhookLookup = async (name) => {
      lookups.push(name);
      return [{ address: "127.0.0.1", family: 4 }];
    };
    expect(await post(`http://rebound.test:${port}/hook`, rebound)).toEqual({
      delivered: false,
      refused: true,
      error: "target refused",
    });
    expect(lookups).toEqual(["rebound.test"]);
    // An unresolvable name and a refused literal say the same: the log cannot map a network.
    expect(await post(`http://nowhere.invalid:${port}/hook`)).toEqual({
      delivered: false,
      refused: true,
      error: "target refused",
    });
    expect(await post(`http://[::ffff:7f00:1]:${port}/hook`)).toMatchObject({ refused: true, error: "target refused" });
    expect(connections).toBe(before);
    expect(requests).toHaveLength(0);
  });

  it("goes to the checked address, naming the URL's host: the name is not resolved again", async () => {
    // pinned.invalid resolves nowhere (RFC 6761): only the checked address can be reached.
    const status = await postToTarget(
      {
        url: new URL(`http://pinned.invalid:${port}/hook?q=1`),
        host: "pinned.invalid",
        address: { address: "127.0.0.1", family: 4 },
      },
      { body: '{"a":1}', headers: { "content-type": "application/json" } },
      AbortSignal.timeout(2_000),
    );
    expect(status).toBe(204);
    expect(requests.at(-1)).toMatchObject({
      headers: { host: `pinned.invalid:${port}`, "content-length": "7" },
      body: '{"a":1}',
    });
  });
});
