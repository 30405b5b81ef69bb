import { randomBytes } from "node:crypto";
import { mockUsdcAbi, transferWithAuthorizationTypes, USDC_EIP712 } from "@agent-marketplace/contracts";
import { type Address, encodeFunctionData, type Hex, type LocalAccount, parseSignature, toHex } from "viem";
import type { Relayer, RelayRequest } from "./relayer.ts";

/** Seconds a transfer authorization made by the service stays valid. */
const AUTHORIZATION_LIFETIME_S = 3_600;

/**
 * USDC moves the relayer makes: a hosted agent's withdrawal (its custodial key signs an EIP-3009
 * `transferWithAuthorization`, so the wallet needs no ETH), and the local chain's faucet.
 */
export function createUsdcActions(options: {
  chainId: number;
  usdc: Address;
  relayer: Relayer;
  /** The chain's clock, unix seconds: authorizations' lifetimes count on it. */
  now: () => Promise<number>;
}) {
  const { chainId, usdc, relayer } = options;
  return {
    /** Signs a transfer of `amount` from `account` to `to` and has the relayer submit it. */
    async relayTransfer(
      account: LocalAccount,
      to: Address,
      amount: bigint,
      relayOptions: Pick<RelayRequest, "record">,
    ): ReturnType<Relayer["submit"]> {
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
      return relayer.submit({ to: usdc, data, purpose: "withdraw", ...relayOptions });
    },

    /** MockUSDC's open `mint`: only meaningful on a local chain. */
    relayMint(to: Address, amount: bigint): ReturnType<Relayer["submit"]> {
      const data: Hex = encodeFunctionData({ abi: mockUsdcAbi, functionName: "mint", args: [to, amount] });
      return relayer.submit({ to: usdc, data, purpose: "faucet" });
    },
  };
}

export type UsdcActions = ReturnType<typeof createUsdcActions>;
