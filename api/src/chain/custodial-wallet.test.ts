import { randomBytes } from "node:crypto";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { createCustodialWallet, custodialAccount, decryptPrivateKey, encryptPrivateKey } from "./custodial-wallet.ts";

const masterKey = randomBytes(32);

describe("custodial wallets", () => {
  it("decrypt to the key of their address, and the stored form hides the key", () => {
    const wallet = createCustodialWallet(masterKey);
    const key = decryptPrivateKey(wallet.encryptedPrivateKey, wallet.address, masterKey);
    expect(privateKeyToAccount(key).address).toBe(wallet.address);
    expect(wallet.encryptedPrivateKey).toMatch(/^v1:[^:]+:[^:]+:[^:]+$/);
    expect(wallet.encryptedPrivateKey).not.toContain(key.slice(2));
  });

  it("encrypt the same key differently each time", () => {
    const wallet = createCustodialWallet(masterKey);
    const key = decryptPrivateKey(wallet.encryptedPrivateKey, wallet.address, masterKey);
    expect(encryptPrivateKey(key, wallet.address, masterKey)).not.toBe(wallet.encryptedPrivateKey);
  });

  it("refuse another master key, another address, or a tampered ciphertext", () => {
    const wallet = createCustodialWallet(masterKey);
    const other = createCustodialWallet(masterKey);
    expect(() => decryptPrivateKey(wallet.encryptedPrivateKey, wallet.address, randomBytes(32))).toThrow();
    expect(() => decryptPrivateKey(wallet.encryptedPrivateKey, other.address, masterKey)).toThrow();
    const [version, iv, tag, ciphertext] = wallet.encryptedPrivateKey.split(":") as [string, string, string, string];
    const flipped = Buffer.from(ciphertext, "base64");
    flipped[0] = (flipped[0] as number) ^ 1;
    expect(() =>
      decryptPrivateKey([version, iv, tag, flipped.toString("base64")].join(":"), wallet.address, masterKey),
    ).toThrow();
    expect(() => decryptPrivateKey(`v0:${iv}:${tag}:${ciphertext}`, wallet.address, masterKey)).toThrow(/format/);
  });

  it("give a hosted agent's row its signing account, in any address case, and refuse a row without a key", () => {
    const wallet = createCustodialWallet(masterKey);
    const row = {
      id: "a1",
      walletAddress: wallet.address.toLowerCase(),
      encryptedPrivateKey: wallet.encryptedPrivateKey,
    };
    expect(custodialAccount(row, masterKey).address).toBe(wallet.address);
    expect(() => custodialAccount({ ...row, encryptedPrivateKey: null }, masterKey)).toThrow(/a1 has no custodial key/);
  });
});
