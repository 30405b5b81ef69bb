import { type Hex, hexToBigInt, recoverTypedDataAddress, toHex, verifyMessage } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Market } from "../../../test/escrow.ts";
import { json, type TestApp, testApp } from "../../../test/harness.ts";

/*
 * The dev wallet on the suite's local chain: JSON-RPC requests from this site's pages reach the
 * Hardhat node, whose dev accounts sign; the node's own methods are not offered, the service's
 * senders cannot be made to send, and another site's page is refused. Dev account 19 only signs
 * here (agents.directory.test.ts sends from it).
 */

let t: TestApp;
let account19: Hex;
beforeAll(async () => {
  t = await testApp();
  const stack = inject("stack");
  account19 = new Market(stack.rpcUrl, stack.deployment).address(19);
});
afterAll(() => t.close());

function rpc(body: unknown, headers: Record<string, string> = {}) {
  return t.app.request("/api/dev/rpc", {
    method: "POST",
    headers: { "content-type": "application/json", origin: "http://localhost", ...headers },
    body: JSON.stringify(body),
  });
}

async function call(method: string, params?: unknown, id: string | number = 7) {
  const response = await rpc({ jsonrpc: "2.0", id, method, ...(params !== undefined && { params }) });
  expect(response.status, method).toBe(200);
  return json(response);
}

describe("POST /api/dev/rpc", () => {
  it("answers eth_chainId as the node does, with the caller's id", async () => {
    expect(await call("eth_chainId", [], "a-string-id")).toEqual({
      jsonrpc: "2.0",
      id: "a-string-id",
      result: toHex(t.config.chainId),
    });
  });

  it("eth_requestAccounts lists the node's dev accounts", async () => {
    const { result } = await call("eth_requestAccounts");
    expect(result.map((address: string) => address.toLowerCase())).toContain(account19.toLowerCase());
  });

  it("personal_sign by dev account 19: a signature viem verifies", async () => {
    const message = "Sign in to the marketplace";
    const { result } = await call("personal_sign", [toHex(message), account19]);
    expect(await verifyMessage({ address: account19, message, signature: result })).toBe(true);
  });

  it("eth_signTypedData_v4 by dev account 19: signed by that account", async () => {
    const typedData = {
      domain: { name: "Test", version: "1", chainId: t.config.chainId },
      types: {
        EIP712Domain: [
          { name: "name", type: "string" },
          { name: "version", type: "string" },
          { name: "chainId", type: "uint256" },
        ],
        Greeting: [{ name: "text", type: "string" }],
      },
      primaryType: "Greeting",
      message: { text: "hello" },
    } as const;
    const { result } = await call("eth_signTypedData_v4", [account19, JSON.stringify(typedData)]);
    const { EIP712Domain: _, ...types } = typedData.types;
    const signer = await recoverTypedDataAddress({ ...typedData, types, signature: result });
    expect(signer.toLowerCase()).toBe(account19.toLowerCase());
  });

  it("a node error comes back as the node's JSON-RPC error", async () => {
    const answer = await call("eth_getBalance", ["not an address", "latest"]);
    expect(answer.result).toBeUndefined();
    expect(answer.error.code).toEqual(expect.any(Number));
  });

  it("refuses methods it does not offer with -32601, and they do nothing", async () => {
    const before = hexToBigInt((await call("eth_getBalance", [account19, "latest"])).result);
    for (const [method, params] of [
      ["hardhat_setBalance", [account19, "0x1"]],
      ["eth_sign", [account19, "0x1234"]],
      ["evm_increaseTime", [3600]],
      ["eth_sendRawTransaction", ["0x00"]],
    ] as const) {
      const answer = await call(method, params, 42);
      expect(answer, method).toEqual({ jsonrpc: "2.0", id: 42, error: { code: -32601, message: expect.any(String) } });
    }
    expect(hexToBigInt((await call("eth_getBalance", [account19, "latest"])).result)).toBe(before);
  });

  it("will not send from the service's own senders (the relayer, the arbiter), nor without a sender", async () => {
    const relayer = privateKeyToAccount(t.config.relayerPrivateKey).address;
    const arbiter = privateKeyToAccount(t.config.arbiter?.privateKey as Hex).address;
    for (const from of [relayer, arbiter.toLowerCase()]) {
      const answer = await call("eth_sendTransaction", [{ from, to: account19, value: "0x1" }]);
      expect(answer.error?.code, from).toBe(4100);
    }
    // Without a from the node would choose the sender: refused, nothing sent.
    const before = await call("eth_getBalance", [account19, "latest"]);
    for (const params of [[{ to: account19, value: "0x1" }], [{ from: 19, to: account19, value: "0x1" }], []]) {
      const answer = await call("eth_sendTransaction", params);
      expect(answer.error?.code, JSON.stringify(params)).toBe(-32602);
    }
    expect((await call("eth_getBalance", [account19, "latest"])).result).toBe(before.result);
  });

  it("refuses another site's page (403) and takes this site's, or a request with no Origin", async () => {
    const body = { jsonrpc: "2.0", id: 1, method: "eth_chainId" };
    const foreign: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
    ];
    for (const headers of foreign) {
      const response = await rpc(body, headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(await json(response)).toMatchObject({ code: "foreign_origin" });
    }
    const noOrigin = await t.app.request("/api/dev/rpc", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(noOrigin.status).toBe(200);
  });

  it("a body that is not one JSON-RPC 2.0 request is 400", async () => {
    for (const body of [
      {},
      { jsonrpc: "1.0", id: 1, method: "eth_chainId" },
      [{ jsonrpc: "2.0", id: 1, method: "eth_chainId" }],
      { jsonrpc: "2.0", id: {}, method: "x" },
    ]) {
      expect((await rpc(body)).status, JSON.stringify(body)).toBe(400);
    }
  });
});
