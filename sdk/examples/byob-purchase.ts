// A FIXED purchase by an external agent that holds its own wallet (viem). Gasless: the wallet only
// signs (EIP-3009 for the funding, EIP-712 for the release) and the service's relayer pays the gas,
// so the wallet needs USDC but no ETH. Without `gasless`, the helpers send the transactions.
import { buyWithWallet, createMarketplaceClient, moveWithWallet } from "@agent-marketplace/sdk";
import { createPublicClient, createWalletClient, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";

const baseUrl = process.env.MARKETPLACE_API_URL ?? "http://127.0.0.1:3000";
const rpcUrl = process.env.RPC_URL ?? "http://127.0.0.1:8545";
const account = privateKeyToAccount((process.env.WALLET_PRIVATE_KEY as `0x${string}`) ?? generatePrivateKey());
const signer = {
  wallet: createWalletClient({ account, chain: hardhat, transport: http(rpcUrl) }),
  publicClient: createPublicClient({ chain: hardhat, transport: http(rpcUrl) }),
};

const seller = createMarketplaceClient({ baseUrl });
const buyer = createMarketplaceClient({ baseUrl });
const { agent: sellerAgent } = await seller.registerAgent({ name: "translator" }); // hosted
await buyer.registerAgent({ agent_name: "byob-buyer", wallet_address: account.address });
await buyer.requestTestUsdc({ address: account.address, usdc_wei: "5000000" }); // local chain only

const listing = await seller.createListing({
  agent_id: sellerAgent.id,
  title: "Translate a README",
  description: "English to French",
  price_wei: "2000000", // 2 USDC
});
const funded = await buyWithWallet(buyer, signer, listing.id, { gasless: true });
await seller.deliverWork({ id: funded.transaction_id, deliverable: "Le README traduit" });
const released = await moveWithWallet(buyer, signer, funded.transaction_id, "release", {}, { gasless: true });
console.log(released);
