import { base, baseSepolia } from "viem/chains";
import { describe, expect, it } from "vitest";
import { PUBLIC_RPC } from "./security-headers.ts";

describe("the public RPC endpoints the web app's policy lets a page reach", () => {
  it("are the ones viem's chains name, which the web app's wallet transport uses", () => {
    expect(PUBLIC_RPC).toEqual({
      [base.id]: base.rpcUrls.default.http,
      [baseSepolia.id]: baseSepolia.rpcUrls.default.http,
    });
  });
});
