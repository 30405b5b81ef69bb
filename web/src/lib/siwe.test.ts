import { recoverMessageAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { describe, expect, test } from "vitest";
import { buildSiweMessage } from "./siwe.ts";

// Hardhat's well-known dev account #0: a test key, never a real one.
const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const input = {
  address: account.address,
  chainId: 31337,
  nonce: "abcdef1234567890",
  host: "127.0.0.1:3000",
  origin: "http://127.0.0.1:3000",
  issuedAt: new Date("2030-01-02T03:04:05.000Z"),
};

describe("buildSiweMessage", () => {
  test("names this page's host, origin, the API's chain and its nonce", () => {
    const fields = parseSiweMessage(buildSiweMessage(input));
    expect(fields.domain, "domain").toBe("127.0.0.1:3000");
    expect(fields.uri, "uri").toBe("http://127.0.0.1:3000");
    expect(fields.chainId, "chain").toBe(31337);
    expect(fields.nonce, "nonce").toBe("abcdef1234567890");
    expect(fields.address, "address").toBe(account.address);
    expect(fields.version, "version").toBe("1");
    expect(fields.issuedAt?.toISOString(), "issued at").toBe("2030-01-02T03:04:05.000Z");
  });
  test("is a message the API's check accepts for this host, and refuses for another", () => {
    const message = parseSiweMessage(buildSiweMessage(input));
    const at = new Date("2030-01-02T03:05:00.000Z");
    expect(validateSiweMessage({ message, domain: "127.0.0.1:3000", nonce: input.nonce, time: at }), "same host").toBe(
      true,
    );
    expect(validateSiweMessage({ message, domain: "evil.example", nonce: input.nonce, time: at }), "other host").toBe(
      false,
    );
  });
  test("a personal_sign of it recovers to the address it names", async () => {
    const message = buildSiweMessage(input);
    const signature = await account.signMessage({ message });
    expect(await recoverMessageAddress({ message, signature }), "signer").toBe(parseSiweMessage(message).address);
  });
});
