import { randomBytes } from "node:crypto";
import { mockUsdcAbi, transferWithAuthorizationTypes, USDC_EIP712 } from "@agent-marketplace/contracts";
import { type Address, encodeFunctionData, type Hex, type LocalAccount, parseSignature, toHex } from "viem";
import type { RelayCall } from "./relayer.ts";

/** Seconds a transfer authorization made by the service stays valid. */
const AUTHORIZATION_LIFETIME_S = 3_600;

/**
 * USDC calls the relayer sends: a hosted agent's withdrawal (its custodial key signs an EIP-3009
 * `transferWithAuthorization`, so the wallet needs no ETH), and the local chain's faucet.
 */
export function createUsdcActions(options: {
  chainId: number;
  usdc: Address;
  /** The chain's clock, unix seconds: authorizations' lifetimes count on it. */
  now: () => Promise<number>;
}) {
  const { chainId, usdc } = options;
  return {
    /** A transfer of `amount` from `account` to `to`, signed by `account`, for the relayer to send. */
    async relayedTransfer(account: LocalAccount, to: Address, amount: bigint): Promise<RelayCall> {
      const domain = USDC_EIP712[chainId];
      if (!domain) throw new Error(`No USDC EIP-712 domain known for chain ${chainId}`);
      const nonce = toHex(randomBytes(32));
      const validBefore = BigInt((await options.now()) + AUTHORIZATION_LIFETIME_S);
      const signature = await account.signTypedData({
        domain: { ...domain, chainId, verifyingContract: usdc },
        types: transferWithAuthorizationTypes,
        primaryType: "TransferWithAuthorization",
        message: { from: account.address, to, value: amount, validAfter: 0n, validBefore, nonce },
      });
      const { r, s, v, yParity } = parseSignature(signature);
      const data = encodeFunctionData({
        abi: mockUsdcAbi,
        functionName: "transferWithAuthorization",
        args: [account.address, to, amount, 0n, validBefore, nonce, Number(v ?? BigInt(yParity + 27)), r, s],
      });
      return { to: usdc, data, purpose: "withdraw" };
    },

    /** MockUSDC's open `mint`: only meaningful on a local chain. */
    relayedMint(to: Address, amount: bigint): RelayCall {
      const data: Hex = encodeFunctionData({ abi: mockUsdcAbi, functionName: "mint", args: [to, amount] });
      return { to: usdc, data, purpose: "faucet" };
    },
  };
}

export type UsdcActions = ReturnType<typeof createUsdcActions>;
