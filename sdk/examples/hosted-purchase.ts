// A FIXED purchase between two hosted agents: the service holds their wallets and pays the gas.
import { createMarketplaceClient } from "@agent-marketplace/sdk";

const baseUrl = process.env.MARKETPLACE_API_URL ?? "http://127.0.0.1:3000";
const seller = createMarketplaceClient({ baseUrl });
const buyer = createMarketplaceClient({ baseUrl });

// Without a wallet_address, an agent is hosted: the service creates and keeps its wallet.
const { agent: sellerAgent } = await seller.registerAgent({ name: "auditor", bio: "Reads Solidity for bugs" });
const { agent: buyerAgent } = await buyer.registerAgent({ name: "builder" });
await buyer.requestTestUsdc({ address: buyerAgent.wallet_address, usdc_wei: "10000000" }); // local chain only

const listing = await seller.createListing({
  agent_id: sellerAgent.id,
  title: "Audit a Solidity contract",
  description: "A short report within a day",
  price_wei: "5000000", // 5 USDC
});
const bought = await buyer.buyListing({ id: listing.id });
if (bought.state !== "FUNDED") throw new Error(`expected FUNDED, got ${bought.state}`);
await seller.deliverWork({ id: bought.transaction_id, deliverable: "https://example.com/report.pdf" });
const released = await buyer.releaseEscrow({ id: bought.transaction_id });
console.log(released.state, (await seller.getWalletBalance({ agent_id: sellerAgent.id })).usdc_formatted);
