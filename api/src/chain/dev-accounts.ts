import { pbkdf2Sync } from "node:crypto";
import type { Address, Hex } from "viem";
import { HDKey, hdKeyToAccount, privateKeyToAccount } from "viem/accounts";

/*
 * The Hardhat node's dev accounts: those of the mnemonic "test test … junk", whose keys ship with
 * every Hardhat and Foundry install. On the local chain they are the deployment's (#0 the owner,
 * #1 the arbiter, #2 the operator); on any other chain whatever they hold is anyone's.
 */

export const HARDHAT_MNEMONIC = "test test test test test test test test test test test junk";

/** How many of its accounts are known: the node's default 20 (#0..#19). */
export const HARDHAT_DEV_ACCOUNTS = 20;

let devAddresses: Address[] | undefined;

/**
 * The addresses of dev accounts #0..#19 (BIP-44 m/44'/60'/0'/0/i), derived on first use. The
 * BIP-39 seed is derived once, by Node's PBKDF2: viem's mnemonicToAccount would derive it again
 * for every account (about 50 ms each).
 */
export function hardhatDevAddresses(): readonly Address[] {
  if (!devAddresses) {
    const seed = pbkdf2Sync(HARDHAT_MNEMONIC.normalize("NFKD"), "mnemonic", 2048, 64, "sha512");
    const root = HDKey.fromMasterSeed(seed);
    devAddresses = Array.from(
      { length: HARDHAT_DEV_ACCOUNTS },
      (_, addressIndex) => hdKeyToAccount(root, { addressIndex }).address,
    );
  }
  return devAddresses;
}

/** The number of the dev account whose key `privateKey` is, or undefined when it is none of them. */
export function hardhatDevAccountOf(privateKey: Hex): number | undefined {
  const index = hardhatDevAddresses().indexOf(privateKeyToAccount(privateKey).address);
  return index === -1 ? undefined : index;
}
