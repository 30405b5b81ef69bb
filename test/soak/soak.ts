/**
 * Soak: `pnpm test:soak` (not in CI). Starts `pnpm start` on its own ports, then SOAK_AGENTS hosted
 * agents (100) trade for SOAK_MINUTES (30): they list services, browse, buy each other's, deliver,
 * release, refund, dispute and message, at random, all at once. Then it reconciles the books:
 * - every escrow, three ways: the API's answer (state, amount), the indexer's row in `chain.escrow`
 *   (read from Postgres directly) and the contract (`escrowState`: the status, and the hash of the
 *   terms, which must be the hash of the indexed row's terms) agree; the indexer holds no escrow of
 *   ours that the API does not list;
 * - USDC is conserved: the agents' wallets + the escrow contract + the fees taken = what the
 *   faucet minted to the agents;
 * - no answer was a 500 or a network failure (a 503 under load is counted, not failed: the API
 *   says the indexer is behind or it is busy, which is honest).
 * Prints the report (and exits 1 if a check fails). SOAK_MINUTES=2 for a short run.
 */
import { agentEscrowAbi, readDeployment } from "@agent-marketplace/contracts";
import { type EscrowTermsRow, stateOfContractStatus, termsOf } from "@agent-marketplace/indexer";
import { createMarketplaceClient, type MarketplaceClient, MarketplaceError } from "@agent-marketplace/sdk";
import pg from "pg";
import { type Address, createPublicClient, erc20Abi, type Hex, http } from "viem";
import { killStack, newStackEnv, startStackProcess } from "../e2e/stack-process.ts";

const AGENTS = Number(process.env.SOAK_AGENTS ?? 100);
const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const GRANT = 1_000_000_000n; // 1,000 USDC each
const PRICES = [1_000_000n, 2_500_000n, 4_000_000n];

interface Agent {
  id: string;
  wallet: Address;
  client: MarketplaceClient;
  listings: string[];
  purchases: Set<string>;
  sales: Set<string>;
}

const tally = new Map<string, number>();
const count = (what: string) => tally.set(what, (tally.get(what) ?? 0) + 1);
const pick = <T>(items: T[]): T | undefined => items[Math.floor(Math.random() * items.length)];

const { dir, env } = await newStackEnv("soak-");
const stack = startStackProcess({
  ...env,
  REGISTRATIONS_PER_HOUR: "100000",
  RATE_LIMIT_PER_MINUTE: "100000",
  RATE_LIMIT_PER_IP_PER_MINUTE: "100000",
  MESSAGES_PER_MINUTE: "100000",
});
let failed = false;
try {
  await stack.healthy();
  const deployment = readDeployment(31337, env.DEPLOYMENTS_DIR);
  if (!deployment) throw new Error("no deployment");
  const chain = createPublicClient({ transport: http(`http://127.0.0.1:${env.HARDHAT_PORT}`) });
  const usdc = deployment.contracts.USDC.address;
  const escrow = deployment.contracts.AgentEscrow.address;
  const balanceOf = (address: Address) =>
    chain.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] });
  const feeRecipient = await chain.readContract({ address: escrow, abi: agentEscrowAbi, functionName: "feeRecipient" });
  const feesBefore = await balanceOf(feeRecipient);
  const escrowBefore = await balanceOf(escrow);

  console.log(`soak: ${AGENTS} agents for ${MINUTES} min against ${stack.apiUrl}`);
  const agents: Agent[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const client = createMarketplaceClient({ baseUrl: stack.apiUrl });
    const { agent } = await client.registerAgent({ name: `soak-${i}`, hosted: true });
    await client.requestTestUsdc({ address: agent.wallet_address, usdc_wei: GRANT.toString() });
    agents.push({
      id: agent.id,
      wallet: agent.wallet_address as Address,
      client,
      listings: [],
      purchases: new Set(),
      sales: new Set(),
    });
  }

  /** One random step of an agent; refusals (4xx) are part of the traffic, a 5xx is a failure. */
  async function step(agent: Agent): Promise<void> {
    const roll = Math.random();
    /** What the agent is doing, so that a refusal is counted with the move it refused. */
    let action = "create listing";
    try {
      if (roll < 0.1 || agent.listings.length === 0) {
        const listing = await agent.client.createListing({
          agent_id: agent.id,
          title: `Service ${Math.random().toString(36).slice(2, 8)}`,
          description: "soak",
          price_wei: (pick(PRICES) as bigint).toString(),
        });
        agent.listings.push(listing.id);
        count("create listing");
      } else if (roll < 0.3) {
        action = "browse";
        await agent.client.browseListings({ limit: 20 });
        count("browse");
      } else if (roll < 0.5) {
        const seller = pick(agents.filter((other) => other !== agent && other.listings.length > 0));
        const listingId = seller && pick(seller.listings);
        if (!seller || !listingId) return;
        action = "buy";
        const bought = (await agent.client.buyListing({ id: listingId })) as { transaction_id: string };
        agent.purchases.add(bought.transaction_id);
        seller.sales.add(bought.transaction_id);
        count("buy");
      } else if (roll < 0.7) {
        const id = pick([...agent.sales]);
        if (!id) return;
        // One try per sale: after a 503 the move may have happened, and a repeat would be refused.
        agent.sales.delete(id);
        if (Math.random() < 0.1) {
          action = "refund (seller)";
          await agent.client.refundEscrow({ id });
          count("refund (seller)");
        } else {
          action = "deliver";
          await agent.client.deliverWork({ id, deliverable: "soak work" });
          count("deliver");
        }
      } else if (roll < 0.9) {
        const id = pick([...agent.purchases]);
        if (!id) return;
        action = "read transaction";
        const { state } = await agent.client.getTransaction({ id });
        if (state !== "DELIVERED") return;
        agent.purchases.delete(id);
        if (Math.random() < 0.05) {
          action = "dispute";
          await agent.client.openDispute({ id, reason: "soak dispute" });
          count("dispute");
        } else {
          action = "release";
          await agent.client.releaseEscrow({ id });
          count("release");
        }
      } else {
        const peer = pick(agents.filter((other) => other !== agent));
        if (!peer) return;
        action = "message";
        await agent.client.sendMessage({ to_agent_id: peer.id, content: "soak hello" });
        count("message");
      }
    } catch (error) {
      if (error instanceof MarketplaceError && error.status < 500) {
        count(`refused ${error.status} ${error.code} (${action})`);
        return;
      }
      if (error instanceof MarketplaceError && error.status === 503) {
        // Honest overload (the indexer behind, the pool busy): the write may have happened.
        count(`503 ${error.code} (${action})`);
        return;
      }
      count(
        `FAILED ${error instanceof MarketplaceError ? `${error.status} ${error.code}` : String(error)} (${action})`,
      );
    }
  }

  const until = Date.now() + MINUTES * 60_000;
  const started = Date.now();
  await Promise.all(
    agents.map(async (agent) => {
      while (Date.now() < until) await step(agent);
    }),
  );
  const seconds = (Date.now() - started) / 1000;

  // Reconciliation. Let the indexer and the keeper settle first.
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const indexed = await indexedEscrows(`postgresql://postgres:postgres@127.0.0.1:${env.PG_PORT}/marketplace`);
  const seen = new Set<string>();
  let mismatches = 0;
  let escrows = 0;
  const mismatch = (id: string, what: string) => {
    mismatches++;
    console.log(`MISMATCH ${id}: ${what}`);
  };
  for (const agent of agents) {
    let cursor: string | undefined;
    do {
      const page = await agent.client.listTransactions({ agent_id: agent.id, limit: 100, cursor });
      for (const transaction of page.transactions) {
        if (seen.has(transaction.id)) continue;
        seen.add(transaction.id);
        const [status, termsHash] = await chain.readContract({
          address: escrow,
          abi: agentEscrowAbi,
          functionName: "escrowState",
          args: [transaction.escrow_id_bytes32 as Hex],
        });
        const onChain = stateOfContractStatus(Number(status)) ?? "PENDING";
        const row = indexed.get(transaction.id);
        indexed.delete(transaction.id);
        const agrees =
          onChain === "RESOLVED"
            ? transaction.state === "RELEASED" || transaction.state === "REFUNDED"
            : onChain === transaction.state;
        if (!agrees) mismatch(transaction.id, `API ${transaction.state}, contract ${onChain}`);
        if (onChain === "PENDING") {
          if (row) mismatch(transaction.id, `indexed as ${row.status}, none on the contract`);
          continue;
        }
        escrows++;
        if (!row) {
          mismatch(transaction.id, `contract ${onChain}, not indexed`);
          continue;
        }
        if (row.status !== onChain) mismatch(transaction.id, `indexer ${row.status}, contract ${onChain}`);
        const rowHash = await chain.readContract({
          address: escrow,
          abi: agentEscrowAbi,
          functionName: "hashTerms",
          args: [termsOf(row)],
        });
        if (rowHash !== termsHash) mismatch(transaction.id, "the indexed terms do not hash to the contract's");
        if (BigInt(transaction.amount_wei) !== row.amount)
          mismatch(transaction.id, `API amount ${transaction.amount_wei}, indexer ${row.amount}`);
      }
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }
  for (const id of indexed.keys()) mismatch(id, "indexed, but no agent's transaction list has it");
  const wallets = (await Promise.all(agents.map((agent) => balanceOf(agent.wallet)))).reduce((a, b) => a + b, 0n);
  const inEscrow = (await balanceOf(escrow)) - escrowBefore;
  const fees = (await balanceOf(feeRecipient)) - feesBefore;
  const minted = GRANT * BigInt(AGENTS);
  const conserved = wallets + inEscrow + fees === minted;
  const failures = [...tally].filter(([what]) => what.startsWith("FAILED"));
  const actions = [...tally].reduce((sum, [, n]) => sum + n, 0);

  console.log("\n## Soak report");
  console.log(
    `${AGENTS} hosted agents, ${seconds.toFixed(0)} s, ${actions} actions (${(actions / seconds).toFixed(1)}/s)`,
  );
  for (const [what, n] of [...tally].sort((a, b) => b[1] - a[1])) console.log(`- ${what}: ${n}`);
  console.log(
    `\nTransactions: ${seen.size}, escrows on chain: ${escrows}, disagreements among API, indexer and contract: ${mismatches}`,
  );
  console.log(
    `USDC: wallets ${wallets} + escrow ${inEscrow} + fees ${fees} = ${wallets + inEscrow + fees}; minted ${minted}: ${conserved ? "conserved" : "NOT CONSERVED"}`,
  );
  console.log(`500s and network failures: ${failures.reduce((sum, [, n]) => sum + n, 0)}`);
  failed = mismatches > 0 || !conserved || failures.length > 0;
} catch (error) {
  console.error(error);
  failed = true;
} finally {
  await killStack(stack, env.DATA_DIR);
  if (!process.env.KEEP_TEST_DATA) (await import("node:fs")).rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/** The indexer's escrows that carry an API transaction id, by that id (read from its view). */
async function indexedEscrows(databaseUrl: string) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{
      uuid: string;
      status: string;
      buyer: Hex;
      seller: Hex;
      amount: string;
      deadline: string;
      dispute_window: number;
      delivered_at: string;
      fee_bps: number;
    }>(
      "SELECT uuid, status, buyer, seller, amount, deadline, dispute_window, delivered_at, fee_bps FROM chain.escrow WHERE uuid IS NOT NULL AND chain_id = 31337",
    );
    return new Map<string, EscrowTermsRow & { status: string }>(
      rows.map((row) => [
        row.uuid,
        {
          status: row.status,
          buyer: row.buyer,
          seller: row.seller,
          amount: BigInt(row.amount),
          deadline: BigInt(row.deadline),
          disputeWindow: row.dispute_window,
          deliveredAt: BigInt(row.delivered_at),
          feeBps: row.fee_bps,
        },
      ]),
    );
  } finally {
    await db.end();
  }
}
