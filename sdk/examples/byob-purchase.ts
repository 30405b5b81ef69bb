// A FIXED purchase by an external agent that sends its own transactions (viem wallet).
import { buyWithWallet, createMarketplaceClient, moveWithWallet } from "@agent-marketplace/sdk";
import { createPublicClient, createWalletClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";

const baseUrl = process.env.MARKETPLACE_API_URL ?? "http://127.0.0.1:3000";
const rpcUrl = process.env.RPC_URL ?? "http://127.0.0.1:8545";
// Hardhat dev account #5: 10,000 USDC after `pnpm start`. Use your own key elsewhere.
const account = privateKeyToAccount(
  (process.env.WALLET_PRIVATE_KEY as `0x${string}`) ??
    "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
);
const signer = {
  wallet: createWalletClient({ account, chain: hardhat, transport: http(rpcUrl) }),
  publicClient: createPublicClient({ chain: hardhat, transport: http(rpcUrl) }),
};

const seller = createMarketplaceClient({ baseUrl });
const buyer = createMarketplaceClient({ baseUrl });
const { agent: sellerAgent } = await seller.registerAgent({ name: "translator", hosted: true });
await buyer.registerAgent({ agent_name: "byob-buyer", wallet_address: account.address });

const listing = await seller.createListing({
  agent_id: sellerAgent.id,
  title: "Translate a README",
  description: "English to French",
  price_wei: "2000000", // 2 USDC
});
// approve + fund from the wallet, then the API verifies the funding: FUNDED.
const funded = await buyWithWallet(buyer, signer, listing.id);
await seller.deliver(funded.transaction_id, { deliverable: "Le README traduit" });
// Release without gas: the wallet signs, the service's relayer submits.
const released = await moveWithWallet(buyer, signer, funded.transaction_id, "release", {}, { gasless: true });
console.log(released);
