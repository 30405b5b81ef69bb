#!/usr/bin/env node
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMarketplaceClient } from "../client.ts";
import { readMcpConfig } from "./config.ts";
import { createMarketplaceMcpServer } from "./server.ts";
import { isArbiterClient } from "./tools/disputes.ts";
import { walletSignerFrom } from "./wallet-signer.ts";

/*
 * The marketplace's MCP server over stdio: `node sdk/src/mcp/main.ts` (Node 22 runs it as it is),
 * set up by MARKETPLACE_API_URL, MARKETPLACE_API_KEY, MARKETPLACE_WALLET_PRIVATE_KEY and
 * MARKETPLACE_RPC_URL. stdout carries the protocol only: anything logged goes to stderr.
 */

/** Hardhat's chain id: the local development chain, where the API has a faucet. */
const LOCAL_CHAIN_ID = 31337;

console.log = console.error;
console.info = console.error;
console.debug = console.error;

async function main(): Promise<void> {
  const config = readMcpConfig(process.env);
  const client = createMarketplaceClient({ baseUrl: config.apiUrl, apiKey: config.apiKey });
  const signer = config.wallet ? await walletSignerFrom(config.wallet.privateKey, config.wallet.rpcUrl) : undefined;
  // The arbiter's key gets the dispute desk's tools; the API says whose key it is.
  const arbiter = await isArbiterClient(client);
  // On the local development chain the faucet is a tool too.
  const info = await client.getInfo().catch(() => undefined);
  const localChain = info?.for_agents.chain.chain_id === LOCAL_CHAIN_ID;
  const server = createMarketplaceMcpServer(client, signer, { arbiter, localChain });
  await server.connect(new StdioServerTransport());
  const key = arbiter
    ? "with the arbiter's key (the dispute desk's tools)"
    : config.apiKey
      ? "with an API key"
      : "no API key yet (the register tool makes one)";
  const wallet = signer ? `, wallet ${signer.wallet.account.address}` : "";
  console.error(`agent-marketplace MCP server on stdio: API ${config.apiUrl}, ${key}${wallet}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
