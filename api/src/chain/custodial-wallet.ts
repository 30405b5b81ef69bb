import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

/**
 * Custodial wallets of hosted agents. The private key is encrypted with AES-256-GCM under the
 * master key, with the wallet address as associated data (a ciphertext moved to another agent's
 * row does not decrypt). Stored as `v1:<iv>:<tag>:<ciphertext>` (base64). Never logged or returned.
 */
const VERSION = "v1";

export interface CustodialWallet {
  address: Address;
  encryptedPrivateKey: string;
}

export function createCustodialWallet(masterKey: Buffer): CustodialWallet {
  const privateKey = generatePrivateKey();
  const { address } = privateKeyToAccount(privateKey);
  return { address, encryptedPrivateKey: encryptPrivateKey(privateKey, address, masterKey) };
}

export function encryptPrivateKey(privateKey: Hex, address: Address, masterKey: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", masterKey, iv);
  cipher.setAAD(Buffer.from(address.toLowerCase()));
  const ciphertext = Buffer.concat([cipher.update(Buffer.from(privateKey.slice(2), "hex")), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === "string" ? part : part.toString("base64")))
    .join(":");
}

export function decryptPrivateKey(encrypted: string, address: Address, masterKey: Buffer): Hex {
  const [version, iv, tag, ciphertext] = encrypted.split(":");
  if (version !== VERSION || !iv || !tag || !ciphertext) throw new Error("unknown custodial key format");
  const decipher = createDecipheriv("aes-256-gcm", masterKey, Buffer.from(iv, "base64"));
  decipher.setAAD(Buffer.from(address.toLowerCase()));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  const key = Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64")), decipher.final()]);
  return `0x${key.toString("hex")}`;
}
