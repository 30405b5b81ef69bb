import { type Address, getAddress, type Hex } from "viem";
import { generatePrivateKey, type LocalAccount, privateKeyToAccount } from "viem/accounts";
import { openSecret, sealSecret } from "../crypto/secret-box.ts";

/**
 * Custodial wallets of hosted agents. The private key is sealed under the master key with the
 * wallet address (lowercase) as its context: a ciphertext moved to another agent's row does not
 * decrypt. Never logged or returned.
 */
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
  return sealSecret(Buffer.from(privateKey.slice(2), "hex"), address.toLowerCase(), masterKey);
}

export function decryptPrivateKey(encrypted: string, address: Address, masterKey: Buffer): Hex {
  return `0x${openSecret(encrypted, address.toLowerCase(), masterKey).toString("hex")}`;
}

/** The signing account of a hosted agent's custodial wallet; throws when the row holds no key. */
export function custodialAccount(
  agent: { id: string; walletAddress: string; encryptedPrivateKey: string | null },
  masterKey: Buffer,
): LocalAccount {
  if (!agent.encryptedPrivateKey) throw new Error(`hosted agent ${agent.id} has no custodial key`);
  return privateKeyToAccount(decryptPrivateKey(agent.encryptedPrivateKey, getAddress(agent.walletAddress), masterKey));
}
