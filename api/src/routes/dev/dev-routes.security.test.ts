import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectionFrom, get, json, newWallet, type TestApp, testApp, usdcBalance } from "../../../test/harness.ts";

/*
 * Who reaches /api/dev, where the node's dev accounts sign (the arbiter's too) and the faucet
 * mints: on the local chain, clients on this machine only unless DEV_ROUTES says otherwise; any
 * other client finds nothing there (404, as if absent). Off the local chain the routes are absent
 * for everyone, from the OpenAPI document too.
 */

let t: TestApp;
let open: TestApp;
let off: TestApp;
let trustingProxy: TestApp;
let otherChain: TestApp;
beforeAll(async () => {
  [t, open, off, trustingProxy, otherChain] = await Promise.all([
    testApp(),
    testApp({ devRoutes: "on" }),
    testApp({ devRoutes: "off" }),
    testApp({ trustProxy: true }),
    testApp({ chainId: 8453 }),
  ]);
});
afterAll(() => Promise.all([t, open, off, trustingProxy, otherChain].map((app) => app?.close())));

const CHAIN_ID = { jsonrpc: "2.0", id: 1, method: "eth_chainId" };

/** POST `body` to `path` on `app`, from a client at `from` (undefined: no connection at all). */
function postFrom(
  app: TestApp,
  path: string,
  body: unknown,
  from: string | undefined,
  headers: Record<string, string> = {},
) {
  return app.app.request(
    path,
    { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) },
    from === undefined ? {} : connectionFrom(from),
  );
}

const faucetBody = (address: string) => ({ address, usdc_wei: "1000000" });

async function devPaths(app: TestApp): Promise<string[]> {
  const document = await json(await get(app.app, "/api/openapi.json"));
  return Object.keys(document.paths).filter((path) => path.startsWith("/api/dev"));
}

describe("/api/dev on the local chain, DEV_ROUTES unset: this machine only", () => {
  it("answers loopback clients: 127.0.0.0/8, ::1 and IPv4-mapped 127.x", async () => {
    for (const from of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) {
      const response = await postFrom(t, "/api/dev/rpc", CHAIN_ID, from);
      expect(response.status, from).toBe(200);
      expect((await json(response)).result, from).toMatch(/^0x/);
    }
    const wallet = newWallet().address;
    expect((await postFrom(t, "/api/dev/faucet", faucetBody(wallet), "127.0.0.1")).status).toBe(200);
    expect(await usdcBalance(wallet)).toBe(1_000_000n);
  });

  it("is absent (404) for a client on another machine, and mints nothing for it", async () => {
    const wallet = newWallet().address;
    for (const from of ["192.168.1.20", "10.0.0.5", "::ffff:10.0.0.5", "2001:db8::7", "fe80::1", "128.0.0.1"]) {
      for (const [path, body] of [
        ["/api/dev/rpc", CHAIN_ID],
        ["/api/dev/faucet", faucetBody(wallet)],
      ] as const) {
        const response = await postFrom(t, path, body, from);
        expect(response.status, `${path} from ${from}`).toBe(404);
        expect(await json(response), `${path} from ${from}`).toMatchObject({ code: "not_found" });
      }
    }
    // Not even a malformed body tells it apart from a route that does not exist.
    expect((await postFrom(t, "/api/dev/faucet", {}, "192.168.1.20")).status).toBe(404);
    expect(await usdcBalance(wallet)).toBe(0n);
  });

  it("is absent for a request without a connection: no client to place", async () => {
    expect((await postFrom(t, "/api/dev/rpc", CHAIN_ID, undefined)).status).toBe(404);
  });

  it("is absent when a proxy on this machine forwards another machine's client, trusted or not", async () => {
    for (const app of [t, trustingProxy]) {
      const forwarded: Record<string, string>[] = [
        { "x-forwarded-for": "192.168.1.20" },
        // A client naming itself 127.0.0.1 in front of its real address.
        { "x-forwarded-for": "127.0.0.1, 203.0.113.9" },
        { forwarded: 'for="[2001:db8::7]:4711";proto=https' },
        { forwarded: "for=unknown" },
        { "x-real-ip": "10.0.0.5" },
      ];
      for (const headers of forwarded) {
        const response = await postFrom(app, "/api/dev/rpc", CHAIN_ID, "127.0.0.1", headers);
        expect(response.status, `trustProxy ${app.config.trustProxy}: ${JSON.stringify(headers)}`).toBe(404);
      }
      // The proxy forwards a client on this machine: it answers.
      const local = await postFrom(app, "/api/dev/rpc", CHAIN_ID, "127.0.0.1", {
        "x-forwarded-for": "127.0.0.1",
        forwarded: "for=127.0.0.1:5000",
      });
      expect(local.status, `trustProxy ${app.config.trustProxy}`).toBe(200);
    }
    // A trusted proxy on another machine naming 127.0.0.1 names its own machine, not this one.
    const remoteProxy = await postFrom(trustingProxy, "/api/dev/rpc", CHAIN_ID, "10.0.0.2", {
      "x-forwarded-for": "127.0.0.1",
    });
    expect(remoteProxy.status).toBe(404);
  });

  it("documents the routes (they exist, for this machine)", async () => {
    expect((await devPaths(t)).sort()).toEqual(["/api/dev/faucet", "/api/dev/rpc"]);
  });
});

describe("DEV_ROUTES", () => {
  it("on: any client that reaches the port", async () => {
    const response = await postFrom(open, "/api/dev/rpc", CHAIN_ID, "192.168.1.20");
    expect(response.status).toBe(200);
    expect((await json(response)).result).toMatch(/^0x/);
  });

  it("off: absent for everyone, from the OpenAPI document too", async () => {
    for (const from of ["127.0.0.1", "192.168.1.20"]) {
      expect((await postFrom(off, "/api/dev/rpc", CHAIN_ID, from)).status, from).toBe(404);
      expect((await postFrom(off, "/api/dev/faucet", faucetBody(newWallet().address), from)).status, from).toBe(404);
    }
    expect(await devPaths(off)).toEqual([]);
  });
});

describe("/api/dev off the local chain", () => {
  it("is absent for every client, from the OpenAPI document too", async () => {
    expect(otherChain.config.chainId).toBe(8453);
    for (const from of ["127.0.0.1", "::1", "192.168.1.20"]) {
      for (const [path, body] of [
        ["/api/dev/rpc", CHAIN_ID],
        ["/api/dev/faucet", faucetBody(newWallet().address)],
      ] as const) {
        const response = await postFrom(otherChain, path, body, from);
        expect(response.status, `${path} from ${from}`).toBe(404);
        expect(await json(response)).toMatchObject({ code: "not_found" });
      }
    }
    expect(await devPaths(otherChain)).toEqual([]);
  });
});
