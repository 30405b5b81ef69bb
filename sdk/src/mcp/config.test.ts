import { describe, expect, it } from "vitest";
import { DEFAULT_API_URL, readMcpConfig } from "./config.ts";

describe("readMcpConfig", () => {
  it("defaults to the local API, no key and no wallet", () => {
    expect(readMcpConfig({})).toEqual({ apiUrl: DEFAULT_API_URL, apiKey: undefined, wallet: undefined });
  });

  it("takes the API, the key and the wallet from the environment; empty variables count as unset", () => {
    expect(
      readMcpConfig({
        MARKETPLACE_API_URL: "https://market.example",
        MARKETPLACE_API_KEY: "a".repeat(64),
        MARKETPLACE_WALLET_PRIVATE_KEY: `0x${"1".repeat(64)}`,
        MARKETPLACE_RPC_URL: "https://rpc.example",
      }),
    ).toEqual({
      apiUrl: "https://market.example",
      apiKey: "a".repeat(64),
      wallet: { privateKey: `0x${"1".repeat(64)}`, rpcUrl: "https://rpc.example" },
    });
    expect(readMcpConfig({ MARKETPLACE_API_KEY: "", MARKETPLACE_API_URL: "" }).apiKey).toBeUndefined();
  });

  it("refuses a wallet without an RPC URL, and a URL that is not one", () => {
    expect(() => readMcpConfig({ MARKETPLACE_WALLET_PRIVATE_KEY: `0x${"1".repeat(64)}` })).toThrow(
      /MARKETPLACE_RPC_URL/,
    );
    expect(() => readMcpConfig({ MARKETPLACE_API_URL: "not a url" })).toThrow(/MARKETPLACE_API_URL/);
  });
});
