/** The block `pnpm start` prints once everything runs: where each part is, and how to stop. */
import type { Api } from "./parts/api.ts";
import type { Chain } from "./parts/chain.ts";
import type { Contracts } from "./parts/contracts.ts";
import type { Indexer } from "./parts/indexer.ts";
import type { Database } from "./parts/postgres.ts";
import { type Settings, shown } from "./settings.ts";

const RULE = "════════════════════════════════════════════════════════════════════════════════";

export function readyMessage(
  settings: Settings,
  parts: { database: Database; chain: Chain; contracts: Contracts; indexer: Indexer; api: Api },
): string {
  const { database, chain, contracts, indexer, api } = parts;
  const { chainId, local, deployment } = contracts.deployed();
  const apiUrl = api.url();
  const postgres = database.dataDir
    ? `${database.url()}  (data: ${shown(database.dataDir)})`
    : `${redact(database.url())} (DATABASE_URL)`;
  const lines = [
    "",
    RULE,
    `  Agent marketplace is running on chain ${chainId}${local ? " (local Hardhat node)" : ""}`,
    "",
    `  Web app      ${apiUrl}/   (open it in a browser${local ? ": the dev wallet signs in without an extension" : ""})`,
    `  API          ${apiUrl}/api${api.processes > 1 ? `   (${api.processes} processes)` : ""}`,
    `  Docs         ${apiUrl}/docs`,
    `  OpenAPI      ${apiUrl}/api/openapi.json`,
    `  Health       ${apiUrl}/api/health`,
    `  Indexer      ${indexer.url}/status   (log: ${shown(settings.logs.indexer)})`,
    `  RPC          ${chain.rpcUrl}${chain.nodeLog ? `   (log: ${shown(chain.nodeLog)})` : " (RPC_URL)"}`,
    `  Postgres     ${postgres}`,
    `  AgentEscrow  ${deployment.contracts.AgentEscrow.address}`,
    `  USDC         ${deployment.contracts.USDC.address}${local ? " (MockUSDC)" : ""}`,
    "",
  ];
  if (local) {
    lines.push(
      "  Dev accounts The node's accounts #0-#9 (mnemonic \"test test test test test test test test test",
      '               test test junk") hold 10,000 ETH and 10,000 USDC each. #0 is owner and fee',
      "               recipient, #1 the arbiter, #2 the operator.",
    );
  }
  if (chain.nodeLog) {
    lines.push(
      "  Restarts     Agents, keys and listings stay in Postgres. The Hardhat node keeps no state:",
      "               each start deploys the contracts again, at the same addresses, on a fresh",
      "               chain, and the indexer indexes it into a fresh schema.",
    );
  }
  if (api.keyFiles.master) {
    lines.push(`  Master key   ${shown(api.keyFiles.master)} (encrypts hosted agents' wallet keys)`);
  }
  if (local && api.keyFiles.arbiter) {
    lines.push(`  Arbiter key  ${shown(api.keyFiles.arbiter)} (Bearer key of POST /api/transactions/{id}/resolve)`);
  }
  lines.push("", `  Press Ctrl-C to stop everything (data stays in ${shown(settings.dataDir)}).`, RULE, "");
  return lines.join("\n");
}

/** A database URL without its password, for printing. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(DATABASE_URL)";
  }
}
