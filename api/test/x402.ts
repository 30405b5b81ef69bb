import { agentEscrowAbi, mockUsdcAbi } from "@agent-marketplace/contracts";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { type Address, createWalletClient, erc20Abi, type Hex, http, parseEther } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { inject, vi } from "vitest";
import type { Market } from "./escrow.ts";
import type { TestApp } from "./harness.ts";

/*
 * x402 in the API's tests: payers are fresh keys (no ETH: an x402 payment is gasless for them)
 * holding MockUSDC minted by a sender of their own, so no dev account another file sends from is
 * used; the clients are the stock @x402/fetch ones (x402Client, ExactEvmScheme, a viem account),
 * the only setting being the spend control that allows this chain's USDC.
 */

/** The origin the in-process app answers on (app.request takes absolute URLs). */
export const ORIGIN = "http://localhost";

/** A sender with ETH that nobody else uses: it mints USDC (MockUSDC's open faucet) and front-runs. */
export async function chainHelper(market: Market) {
  const account = privateKeyToAccount(generatePrivateKey());
  await market.testClient.setBalance({ address: account.address, value: parseEther("100") });
  const wallet = createWalletClient({ account, transport: http(inject("stack").rpcUrl) });
  async function sent(hash: Hex) {
    const receipt = await market.publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`${hash} reverted`);
    return receipt;
  }
  return {
    address: account.address,
    /** Mints `amount` USDC wei to `to`. */
    mint: async (to: Address, amount: bigint) =>
      sent(
        await wallet.writeContract({
          chain: null,
          address: market.usdc,
          abi: mockUsdcAbi,
          functionName: "mint",
          args: [to, amount],
        }),
      ),
    /** Submits a payment's authorization to the token directly, as anyone who saw it may. */
    frontRun: async (payment: PaymentPayload) => {
      const { authorization, signature } = payment.payload as {
        authorization: {
          from: Address;
          to: Address;
          value: string;
          validAfter: string;
          validBefore: string;
          nonce: Hex;
        };
        signature: Hex;
      };
      return sent(
        await wallet.writeContract({
          chain: null,
          address: market.usdc,
          abi: mockUsdcAbi,
          functionName: "transferWithAuthorization",
          args: [
            authorization.from,
            authorization.to,
            BigInt(authorization.value),
            BigInt(authorization.validAfter),
            BigInt(authorization.validBefore),
            authorization.nonce,
            signature,
          ],
        }),
      );
    },
    /** Sends `cancelAuthorization` the payer signed. */
    cancel: async (payer: PrivateKeyAccount, nonce: Hex) => {
      const signature = await payer.signTypedData({
        domain: { name: "USD Coin", version: "2", chainId: market.chainId, verifyingContract: market.usdc },
        types: {
          CancelAuthorization: [
            { name: "authorizer", type: "address" },
            { name: "nonce", type: "bytes32" },
          ],
        },
        primaryType: "CancelAuthorization",
        message: { authorizer: payer.address, nonce },
      });
      const r = `0x${signature.slice(2, 66)}` as Hex;
      const s = `0x${signature.slice(66, 130)}` as Hex;
      const v = Number.parseInt(signature.slice(130, 132), 16);
      return sent(
        await wallet.writeContract({
          chain: null,
          address: market.usdc,
          abi: mockUsdcAbi,
          functionName: "cancelAuthorization",
          args: [payer.address, nonce, v, r, s],
        }),
      );
    },
  };
}

export type ChainHelper = Awaited<ReturnType<typeof chainHelper>>;

/** A fresh payer holding `usdc` wei of USDC and no ETH. */
export async function fundedPayer(helper: ChainHelper, usdc: bigint): Promise<PrivateKeyAccount> {
  const payer = privateKeyToAccount(generatePrivateKey());
  if (usdc > 0n) await helper.mint(payer.address, usdc);
  return payer;
}

/**
 * A stock x402 client paying as `payer` on this chain: x402Client with @x402/evm's ExactEvmScheme,
 * and the one setting a buyer gives it, spend controls that allow this chain's USDC (the stock
 * client pays only the assets it knows otherwise).
 */
export function stockClient(payer: PrivateKeyAccount, market: Market): x402Client {
  const network = `eip155:${market.chainId}` as const;
  return new x402Client()
    .register(network, new ExactEvmScheme(payer))
    .setSpendControls({ allowedAssets: [{ network, asset: market.usdc }] });
}

/** `fetch` over the in-process app, as the x402 wrapper calls it (with a Request). */
export function appFetch(t: TestApp): typeof fetch {
  return (input, init) => Promise.resolve(t.app.request(input instanceof Request ? input : new Request(input, init)));
}

/** The stock client's fetch over the app: `wrapFetchWithPayment`, unmodified. */
export function payingFetch(t: TestApp, client: x402Client): typeof fetch {
  return wrapFetchWithPayment(appFetch(t), client);
}

/** The listing's x402 URL on the in-process app. */
export function x402Url(listingId: string): string {
  return `${ORIGIN}/api/listings/${listingId}/x402`;
}

/** The listing's payment requirements, as its 402 answers them (PAYMENT-REQUIRED). */
export async function paymentRequiredOf(t: TestApp, listingId: string): Promise<PaymentRequired> {
  const response = await t.app.request(x402Url(listingId));
  const header = response.headers.get("payment-required");
  if (response.status !== 402 || !header) throw new Error(`GET x402 answered ${response.status}`);
  return decodePaymentRequiredHeader(header);
}

/**
 * A payment the stock client made for the listing's requirements (as it would send it), not sent:
 * the payload and its PAYMENT-SIGNATURE header. `tweak` changes the requirements it signs first.
 */
export async function signedPayment(
  t: TestApp,
  client: x402Client,
  listingId: string,
  tweak: (required: PaymentRequired) => PaymentRequired = (required) => required,
): Promise<{ payload: PaymentPayload; header: string }> {
  const payload = await client.createPaymentPayload(tweak(await paymentRequiredOf(t, listingId)));
  return { payload, header: encodePaymentSignatureHeader(payload) };
}

/** Presents a PAYMENT-SIGNATURE header to the listing's x402 endpoint. */
export function present(t: TestApp, listingId: string, header: string, method: "GET" | "POST" = "POST") {
  return t.app.request(x402Url(listingId), { method, headers: { "PAYMENT-SIGNATURE": header } });
}

/** USDC wei held by `address`. */
export function usdcOf(market: Market, address: Address): Promise<bigint> {
  return market.publicClient.readContract({
    address: market.usdc,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [address],
  });
}

/** The escrow's on-chain status (0 none, 1 funded, ...) and whether its operator acts for its buyer. */
export async function escrowOnChain(market: Market, escrowId: Hex) {
  const [[status], delegated] = await Promise.all([
    market.publicClient.readContract({
      address: market.escrow,
      abi: agentEscrowAbi,
      functionName: "escrowState",
      args: [escrowId],
    }),
    market.publicClient.readContract({
      address: market.escrow,
      abi: agentEscrowAbi,
      functionName: "isOperatorDelegated",
      args: [escrowId],
    }),
  ]);
  return { status, delegated };
}

/**
 * Sets this process's clock to the chain's when other test files moved the chain ahead of the wall
 * clock: a stock client signs `validBefore = Date.now() + maxTimeoutSeconds`, which the token checks
 * against the block's time, so on a chain days ahead every payment would be expired. Only Date is
 * faked, and it keeps running. `restore` it after the file.
 */
export async function clockAtChain(market: Market): Promise<{ restore: () => void }> {
  const chainMs = (await market.now()) * 1000;
  if (chainMs <= Date.now()) return { restore: () => {} };
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(chainMs + 1_000);
  return { restore: () => vi.useRealTimers() };
}
