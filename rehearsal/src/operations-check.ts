/**
 * What an operator checks once the flows are done: every transaction settled as the flows left it,
 * readiness answering, the metrics' named series present with values, and every log line JSON (a
 * log collector parses them).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Agent } from "./flows.ts";
import type { Services } from "./services.ts";

const FINAL_STATES = new Set(["RELEASED", "RESOLVED", "REFUNDED"]);

export async function checkOperations(options: {
  services: Services;
  buyer: Agent;
  seller: Agent;
  outsider: Agent;
  logsDir: string;
}) {
  const { services, buyer, seller, outsider, logsDir } = options;
  const problems: string[] = [];

  const counts: Record<string, number> = {};
  for (const agent of [buyer, seller, outsider]) {
    const { transactions } = await agent.client.listTransactions({ agent_id: agent.id });
    counts[agent.id] = transactions.length;
    for (const transaction of transactions) {
      if (!FINAL_STATES.has(transaction.state)) problems.push(`transaction ${transaction.id} is ${transaction.state}`);
    }
  }
  if (counts[buyer.id] !== 5) problems.push(`the hosted buyer has ${counts[buyer.id]} transactions, not 5`);
  if (counts[outsider.id] !== 1) problems.push(`the BYOB buyer has ${counts[outsider.id]} transactions, not 1`);
  // The hosted buyer's five, the BYOB buyer's and the x402 payer's.
  if (counts[seller.id] !== 7) problems.push(`the seller has ${counts[seller.id]} transactions, not 7`);

  // Production has no dev routes: no faucet, no dev wallet.
  for (const [method, route] of [
    ["POST", "/api/dev/faucet"],
    ["POST", "/api/dev/rpc"],
  ] as const) {
    const answer = await fetch(`${services.apiUrl}${route}`, {
      method,
      headers: { "content-type": "application/json" },
      ...(method === "POST" && { body: JSON.stringify({ address: buyer.wallet, usdc_wei: "1000000" }) }),
    });
    if (answer.status !== 404) problems.push(`${method} ${route} answered ${answer.status}, not 404`);
  }

  const ready = await fetch(`${services.apiUrl}/api/ready`);
  if (ready.status !== 200) problems.push(`/api/ready answered ${ready.status}: ${await ready.text()}`);

  for (const service of ["api", "keeper", "indexer"]) {
    const lines = readFileSync(path.join(logsDir, `${service}.log`), "utf8")
      .split("\n")
      .filter(Boolean);
    const plain = lines.filter((line) => {
      try {
        return typeof JSON.parse(line) !== "object";
      } catch {
        return true;
      }
    });
    if (lines.length === 0) problems.push(`${service}.log is empty`);
    if (plain.length > 0) problems.push(`${service}.log has ${plain.length} lines that are not JSON, e.g. ${plain[0]}`);
  }

  if (problems.length > 0) throw new Error(`Operations:\n  ${problems.join("\n  ")}`);
  console.log(`  transactions settled; no dev routes; /api/ready 200; api, keeper and indexer logs are JSON`);
}
