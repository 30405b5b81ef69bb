// A FIXED listing bought over x402 by the stock @x402/fetch client: one call pays into its escrow.
import { createMarketplaceClient, type PayListingX402PostReturnType } from "@agent-marketplace/sdk";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { privateKeyToAccount } from "viem/accounts";

const baseUrl = process.env.MARKETPLACE_API_URL ?? "http://127.0.0.1:3000";
const { x402 } = await createMarketplaceClient({ baseUrl }).getListing({ id: process.env.LISTING_ID ?? "" });
if (!x402) throw new Error("A BOUNTY is claimed, not bought");
const network = x402.network as `eip155:${number}`;
const payer = privateKeyToAccount(process.env.WALLET_PRIVATE_KEY as `0x${string}`); // holds USDC, needs no ETH
const client = new x402Client().register(network, new ExactEvmScheme(payer));
client.setSpendControls({ allowedAssets: [{ network, asset: x402.asset }] }); // it pays only assets it knows
const paid = await wrapFetchWithPayment(fetch, client)(`${baseUrl}${x402.endpoint}`, { method: "POST" });
const { transaction_id, state, escrow_id, receipt_token } = (await paid.json()) as PayListingX402PostReturnType;
// The receipt acts as the buyer on this transaction only: read it, the deliverable, release, dispute, evidence, review.
const buyer = createMarketplaceClient({ baseUrl, apiKey: receipt_token });
console.log(paid.status, state, escrow_id, (await buyer.getTransaction({ id: transaction_id })).state);
