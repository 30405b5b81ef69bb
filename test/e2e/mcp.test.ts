import { readFileSync } from "node:fs";
import path from "node:path";
import { agentEscrowAbi, readDeployment } from "@agent-marketplace/contracts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type Address, createPublicClient, createTestClient, erc20Abi, http, toHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { callApi, eventually, nodeBinary, repoRoot } from "./stack-process.ts";

const MCP_MAIN = path.join(repoRoot, "sdk", "src", "mcp", "main.ts");
const MNEMONIC = "test test test test test test test test test test test junk";
/** A dev account of the local node (10,000 USDC and ETH) that no other part of the stack uses. */
const EXTERNAL_BUYER = 3;

const TOOLS = [
  "accept_offer",
  "accept_proposal",
  "add_evidence",
  "browse_listings",
  "buy_listing",
  "claim_bounty",
  "confirm_funding",
  "counter_offer",
  "create_listing",
  "decline_offer",
  "decline_proposal",
  "deliver",
  "dispute",
  "get_agent",
  "get_balance",
  "get_deliverable",
  "get_listing",
  "get_offer",
  "get_profile",
  "get_proposal",
  "get_reputation",
  "get_spending_limits",
  // The stack runs on the local chain: its faucet is a tool.
  "get_test_usdc",
  "get_timeline",
  "get_transaction",
  "list_agents",
  "list_conversations",
  "list_notifications",
  "list_offers",
  "list_proposals",
  "list_reviews",
  "list_transactions",
  "list_withdrawals",
  "make_offer",
  "make_proposal",
  "mark_notifications_read",
  "name_owner",
  "post_to_feed",
  "read_feed",
  "read_thread",
  "refund",
  "register",
  "register_identity",
  "release",
  "review",
  "send_message",
  "sign_x402_payment",
  "update_listing",
  "update_profile",
  "withdraw",
  "withdraw_offer",
  "withdraw_proposal",
  "x402_payment",
];

/** The tools a server started with the arbiter's key has on top. */
const DESK_TOOLS = ["get_dispute", "list_disputes", "resolve_dispute"];

const { env, apiUrl } = inject("sharedStack");
let rpcUrl: string;
let usdc: Address;
let feeBps: bigint;
let publicClient: ReturnType<typeof createPublicClient>;

/** One MCP server process and the MCP client talking to it. */
interface McpAgent {
  client: Client;
  transport: StdioClientTransport;
  /** What the server wrote to stderr. */
  log(): string;
  /** Calls a tool that must succeed; its JSON answer. */
  // biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON.
  call(tool: string, args?: Record<string, unknown>): Promise<any>;
  /** Calls a tool that must fail; the JSON of its error result. */
  // biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON.
  refused(tool: string, args?: Record<string, unknown>): Promise<any>;
}

const servers: McpAgent[] = [];

async function startMcpServer(name: string, extraEnv: Record<string, string> = {}): Promise<McpAgent> {
  const transport = new StdioClientTransport({
    command: nodeBinary(),
    args: [MCP_MAIN],
    env: { MARKETPLACE_API_URL: apiUrl, ...extraEnv },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: `e2e ${name}`, version: "0.0.0" });
  await client.connect(transport);
  const run = async (tool: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name: tool, arguments: args });
    const content = result.content as Array<{ type: string; text: string }>;
    expect(content).toHaveLength(1);
    expect(content[0]?.type).toBe("text");
    return { isError: result.isError === true, text: content[0]?.text ?? "" };
  };
  const server: McpAgent = {
    client,
    transport,
    log: () => stderr,
    async call(tool, args = {}) {
      const { isError, text } = await run(tool, args);
      if (isError) throw new Error(`${name}: ${tool} answered an error: ${text}\nserver log:\n${stderr}`);
      return JSON.parse(text);
    },
    async refused(tool, args = {}) {
      const { isError, text } = await run(tool, args);
      if (!isError) throw new Error(`${name}: ${tool} was expected to fail, answered: ${text}`);
      return JSON.parse(text);
    },
  };
  servers.push(server);
  return server;
}

const usdcOf = (address: Address) =>
  publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] });

const feeOf = (amount: bigint) => (amount * feeBps) / 10_000n;

async function faucet(address: Address, usdcWei: bigint) {
  const grant = await callApi(apiUrl, "POST", "/api/dev/faucet", { address, usdc_wei: usdcWei.toString() });
  expect(grant.status).toBe(200);
}

beforeAll(async () => {
  rpcUrl = `http://127.0.0.1:${env.HARDHAT_PORT}`;
  const deployment = readDeployment(31337, env.DEPLOYMENTS_DIR);
  if (!deployment) throw new Error("no deployment");
  usdc = deployment.contracts.USDC.address;
  publicClient = createPublicClient({ transport: http(rpcUrl) });
  feeBps = BigInt(
    await publicClient.readContract({
      address: deployment.contracts.AgentEscrow.address,
      abi: agentEscrowAbi,
      functionName: "feeBps",
    }),
  );
  // Longer than stack.healthy()'s own limit, so that a stack that never comes up fails with its output.
}, 240_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.client.close()));
});

describe("the MCP server, one per agent, over stdio", () => {
  let poster: McpAgent;
  let hunter: McpAgent;
  /** The two hosted agents as registered: poster (and buyer) first, hunter (and seller) second. */
  const agents: { id: string; wallet: Address }[] = [];
  const posterFunds = 20_000_000n;
  /** What each hosted wallet should hold on chain, as the flows go. */
  const expected = { poster: 0n, hunter: 0n };

  it("lists every tool, with an input schema and a description", async () => {
    poster = await startMcpServer("poster");
    hunter = await startMcpServer("hunter");
    for (const server of [poster, hunter]) {
      const { tools } = await server.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
      for (const tool of tools) {
        expect(tool.inputSchema.type).toBe("object");
        expect(tool.description?.length ?? 0).toBeGreaterThan(60);
      }
    }
    expect(poster.client.getServerVersion()?.name).toBe("agent-marketplace");
  });

  it("registers each agent through the register tool; the session keeps the key it answers", async () => {
    expect(await poster.refused("get_profile")).toMatchObject({ status: 401, code: "unauthorized" });
    // Hosted either way: by default (no wallet configured, none given), or asked for.
    for (const [server, name, hosted] of [
      [poster, "mcp poster", {}],
      [hunter, "mcp hunter", { hosted: true }],
    ] as const) {
      const registered = await server.call("register", { name, skills: ["testing"], ...hosted });
      expect(registered.agent).toMatchObject({ name, hosted: true });
      expect(registered.api_key).toMatch(/^[0-9a-f]{64}$/);
      const profile = await server.call("get_profile");
      expect(profile).toMatchObject({ id: registered.agent.id, name, hosted: true, skills: ["testing"] });
      expect((await server.refused("register", { name: "again", hosted: true })).code).toBe("already_registered");
      agents.push({ id: registered.agent.id, wallet: registered.agent.wallet_address });
    }
    const [posterAgent] = agents;
    if (!posterAgent) throw new Error("no poster");
    // A hosted agent registered without an owner names one, once.
    const owner = mnemonicToAccount(MNEMONIC, { addressIndex: 16 }).address;
    expect(await poster.call("name_owner", { owner_address: owner })).toEqual({
      agent_id: posterAgent.id,
      owner_address: owner,
    });
    expect(await poster.refused("name_owner", { owner_address: owner })).toMatchObject({ status: 409 });
    await faucet(posterAgent.wallet, posterFunds);
    expected.poster = posterFunds;
    const balance = await poster.call("get_balance");
    expect(balance).toMatchObject({ agent_id: posterAgent.id, usdc_wei: posterFunds.toString() });
    expect(BigInt(balance.usdc.replace(".", ""))).toBe(posterFunds);
  });

  it("BOUNTY: posted in USDC, claimed, delivered; the keeper releases it after the dispute window", async () => {
    const reward = 4_000_000n;
    const bounty = await poster.call("create_listing", {
      title: "Find the flaky test",
      description: "A test fails one run in ten; find why and fix it.",
      price_usdc: "4",
      listing_type: "BOUNTY",
      category: "coding",
    });
    expect(bounty).toMatchObject({
      listing_type: "BOUNTY",
      price_wei: reward.toString(),
      price_usdc: "4.000000",
      funding: { state: "FUNDED" },
    });
    expected.poster -= reward;

    const open = await hunter.call("browse_listings", { listing_type: "BOUNTY", keyword: "flaky" });
    expect(open.listings.map((listing: { id: string }) => listing.id)).toContain(bounty.id);
    const claimed = await hunter.call("claim_bounty", { listing_id: bounty.id });
    expect(claimed).toMatchObject({ success: true, state: "FUNDED", transaction_id: bounty.funding.transaction_id });
    const id = claimed.transaction_id;

    const delivered = await hunter.call("deliver", {
      transaction_id: id,
      deliverable: "A race in the fixture; fixed.",
      deliverable_url: "https://example.com/pull/42",
    });
    expect(delivered).toMatchObject({ state: "DELIVERED", transaction_id: id });
    expect(await poster.call("get_deliverable", { transaction_id: id })).toMatchObject({
      content: "A race in the fixture; fixed.",
      deliverable_url: "https://example.com/pull/42",
      deliverable_hash: delivered.deliverable_hash,
    });
    const mine = await hunter.call("list_transactions", { state: "DELIVERED" });
    expect(mine.transactions.map((transaction: { id: string }) => transaction.id)).toEqual([id]);
    expect(mine.transactions[0]).toMatchObject({ amount_wei: reward.toString(), amount_usdc: "4.000000" });

    const testClient = createTestClient({ mode: "hardhat", transport: http(rpcUrl) });
    await testClient.increaseTime({ seconds: delivered.dispute_window_hours * 3600 + 60 });
    await testClient.mine({ blocks: 1 });
    await eventually(
      async () => expect((await poster.call("get_transaction", { transaction_id: id })).state).toBe("RELEASED"),
      60_000,
    );
    expected.hunter += reward - feeOf(reward);

    // Notifications follow the indexed events a moment later.
    await eventually(
      async () =>
        expect(
          (await hunter.call("list_notifications", {})).notifications.map(
            (notification: { kind: string }) => notification.kind,
          ),
        ).toContain("payment.released"),
      60_000,
    );
    const posterKinds = (await poster.call("list_notifications", {})).notifications.map(
      (notification: { kind: string }) => notification.kind,
    );
    expect(posterKinds).toContain("listing.claimed");
    expect((await hunter.call("mark_notifications_read", { all: true })).marked).toBeGreaterThan(0);
    expect((await hunter.call("list_notifications", { unread_only: true })).unread_count).toBe(0);
  });

  it("FIXED: bought, delivered and released between the two agents; the seller's release waits for the window", async () => {
    const [posterAgent, hunterAgent] = agents;
    if (!posterAgent || !hunterAgent) throw new Error("no agents");
    expect(
      await hunter.refused("create_listing", { title: "x", description: "y", price_usdc: "1.0000001" }),
    ).toMatchObject({ code: "invalid_amount" });
    expect(
      await hunter.refused("create_listing", { title: "x", description: "y", price_usdc: "1", price_wei: "1000000" }),
    ).toMatchObject({ code: "invalid_amount" });

    const price = 2_500_000n;
    const listing = await hunter.call("create_listing", {
      title: "Review a pull request",
      description: "A careful review within a day.",
      price_wei: price.toString(),
    });
    expect(listing).toMatchObject({ listing_type: "FIXED", price_usdc: "2.500000", is_active: true });

    // The price the model was shown goes with the buy: another one is refused and nothing is bought.
    expect(await poster.refused("buy_listing", { listing_id: listing.id, expected_price_usdc: "2" })).toMatchObject({
      status: 409,
      code: "price_changed",
      current_price_wei: price.toString(),
    });
    expect((await poster.refused("buy_listing", { listing_id: listing.id })).code).toBe("invalid_amount");
    const bought = await poster.call("buy_listing", { listing_id: listing.id, expected_price_usdc: "2.5" });
    expect(bought).toMatchObject({ state: "FUNDED", amount_wei: price.toString(), amount_usdc: "2.500000" });
    expected.poster -= price;
    const id = bought.transaction_id;

    expect(await hunter.call("deliver", { transaction_id: id, deliverable: "LGTM, two nits." })).toMatchObject({
      state: "DELIVERED",
    });
    // The seller may release its own pay only once the dispute window has closed.
    const tooEarly = await hunter.refused("release", { transaction_id: id });
    expect(tooEarly).toMatchObject({ status: 409, code: "conflict", state: "DELIVERED" });
    expect(tooEarly.message).toMatch(/dispute window/);
    expect(Date.parse(tooEarly.auto_release_at)).toBeGreaterThan(Date.now());
    expect((await poster.call("get_transaction", { transaction_id: id })).state).toBe("DELIVERED");

    const released = await poster.call("release", { transaction_id: id });
    const fee = feeOf(price);
    expect(released).toMatchObject({
      state: "RELEASED",
      seller_received_wei: (price - fee).toString(),
      fee_wei: fee.toString(),
    });
    expect(BigInt(released.seller_received_usdc.replace(".", ""))).toBe(price - fee);
    expected.hunter += price - fee;

    const review = await poster.call("review", { transaction_id: id, rating: 5, comment: "Quick and careful" });
    expect(review.review).toMatchObject({ rating: 5, reviewee: { id: hunterAgent.id } });
    const reviews = await poster.call("list_reviews", { agent_id: hunterAgent.id });
    expect(reviews).toMatchObject({ review_count: 1, avg_rating: "5.00" });
    const reputation = await hunter.call("get_reputation", { verify: true });
    expect(reputation).toMatchObject({ matches: true, indexed: { completed_transactions: 2 } });
  });

  it("messages and the feed through the tools", async () => {
    const [posterAgent, hunterAgent] = agents;
    if (!posterAgent || !hunterAgent) throw new Error("no agents");
    await poster.call("send_message", { to_agent_id: hunterAgent.id, content: "Thanks, more work soon." });
    const thread = await hunter.call("read_thread", { peer_agent_id: posterAgent.id });
    expect(thread.messages.map((message: { content: string }) => message.content)).toEqual(["Thanks, more work soon."]);
    expect((await hunter.call("list_conversations")).conversations).toHaveLength(1);
    const posted = await hunter.call("post_to_feed", { content: "Taking code reviews this week." });
    const feed = await poster.call("read_feed", { limit: 10 });
    expect(feed.items.map((item: { id: string }) => item.id)).toContain(posted.post.id);
  });

  it("an external agent's server completes its on-chain steps with its own wallet", async () => {
    const [, hunterAgent] = agents;
    if (!hunterAgent) throw new Error("no seller");
    const account = mnemonicToAccount(MNEMONIC, { addressIndex: EXTERNAL_BUYER });
    const privateKey = account.getHdKey().privateKey;
    if (!privateKey) throw new Error("no private key");
    const external = await startMcpServer("external buyer", {
      MARKETPLACE_WALLET_PRIVATE_KEY: toHex(privateKey),
      MARKETPLACE_RPC_URL: rpcUrl,
    });
    const registered = await external.call("register", { name: "mcp external buyer" });
    expect(registered.agent).toMatchObject({ hosted: false, wallet_address: account.address });

    const price = 1_500_000n;
    const listing = await hunter.call("create_listing", {
      title: "Summarise a paper",
      description: "One page.",
      price_usdc: "1.5",
    });
    const usdcBefore = await usdcOf(account.address);
    const bought = await external.call("buy_listing", { listing_id: listing.id, expected_price_usdc: "1.5" });
    expect(bought).toMatchObject({ state: "FUNDED", transaction_id: expect.any(String) });
    expect(await usdcOf(account.address)).toBe(usdcBefore - price);
    const id = bought.transaction_id;

    await hunter.call("deliver", { transaction_id: id, deliverable: "The summary." });
    const ethBefore = await publicClient.getBalance({ address: account.address });
    const released = await external.call("release", { transaction_id: id, gasless: true });
    expect(released).toMatchObject({ state: "RELEASED", seller_received_wei: (price - feeOf(price)).toString() });
    // Gasless: the wallet signed, the relayer paid.
    expect(await publicClient.getBalance({ address: account.address })).toBe(ethBefore);
    expected.hunter += price - feeOf(price);
    expect(await usdcOf(account.address)).toBe(usdcBefore - price);

    // A bounty of its own: the wallet funds the reward, the API confirms it, the bounty is listed.
    const reward = 1_000_000n;
    const bounty = await external.call("create_listing", {
      title: "Translate a README",
      description: "Into French.",
      price_usdc: "1",
      listing_type: "BOUNTY",
    });
    expect(bounty).toMatchObject({ is_active: true, funding: { state: "FUNDED" } });
    expect(await usdcOf(account.address)).toBe(usdcBefore - price - reward);
    const open = await hunter.call("browse_listings", { listing_type: "BOUNTY", keyword: "README" });
    expect(open.listings.map((listing: { id: string }) => listing.id)).toContain(bounty.id);
  });

  it("a server with the arbiter's key has the dispute desk: it reads the queue and the case, and rules", async () => {
    const [posterAgent, hunterAgent] = agents;
    if (!posterAgent || !hunterAgent) throw new Error("no agents");
    // An agent's server is never offered the desk.
    expect((await poster.client.listTools()).tools.map((tool) => tool.name)).not.toContain("list_disputes");
    const arbiter = await startMcpServer("arbiter", {
      MARKETPLACE_API_KEY: readFileSync(path.join(env.DATA_DIR, "arbiter.key"), "utf8").trim(),
    });
    const { tools } = await arbiter.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS, ...DESK_TOOLS].sort());

    const price = 2_000_000n;
    const listing = await hunter.call("create_listing", {
      title: "Label a dataset",
      description: "500 rows.",
      price_usdc: "2",
    });
    const bought = await poster.call("buy_listing", { listing_id: listing.id, expected_price_wei: price.toString() });
    expected.poster -= price;
    const id = bought.transaction_id;
    await hunter.call("deliver", { transaction_id: id, deliverable: "Labels for 250 rows." });
    const reason = "Half of the rows are not labelled.";
    expect(await poster.call("dispute", { transaction_id: id, reason })).toMatchObject({ state: "DISPUTED" });
    await hunter.call("add_evidence", { transaction_id: id, content: "The other half had no text to label." });

    const queue = await arbiter.call("list_disputes", {});
    const queued = queue.disputes.find((item: { transaction_id: string }) => item.transaction_id === id);
    expect(queued).toMatchObject({ raised_by: "buyer", reason, evidence_count: 1 });
    const dispute = await arbiter.call("get_dispute", { transaction_id: id });
    expect(dispute.reason).toBe(reason);
    expect(dispute.deliverable).toMatchObject({ content: "Labels for 250 rows.", matches_chain: true });
    expect(dispute.evidence.map((item: { content: string }) => item.content)).toEqual([
      "The other half had no text to label.",
    ]);

    const note = "Half the work was done: half the pay.";
    const ruled = await arbiter.call("resolve_dispute", { transaction_id: id, seller_bps: 5_000, note });
    const sellerShare = price / 2n;
    expect(ruled).toMatchObject({
      state: "RELEASED",
      resolution: {
        seller_bps: 5_000,
        seller_received_wei: (sellerShare - feeOf(sellerShare)).toString(),
        buyer_refunded_wei: (price - sellerShare).toString(),
        note,
      },
    });
    expected.poster += price - sellerShare;
    expected.hunter += sellerShare - feeOf(sellerShare);
    expect((await poster.call("get_transaction", { transaction_id: id })).resolution.note).toBe(note);
    const open = await arbiter.call("list_disputes", { status: "open" });
    expect(open.disputes.map((item: { transaction_id: string }) => item.transaction_id)).not.toContain(id);
  });

  it("balances on chain: the hunter and seller got each amount less the fee, the buyer paid each amount", async () => {
    const [posterAgent, hunterAgent] = agents;
    if (!posterAgent || !hunterAgent) throw new Error("no agents");
    expect(await usdcOf(posterAgent.wallet)).toBe(expected.poster);
    expect(await usdcOf(hunterAgent.wallet)).toBe(expected.hunter);
    const hunterBalance = await hunter.call("get_balance");
    expect(hunterBalance.usdc_wei).toBe(expected.hunter.toString());
  });

  it("closing an MCP client stops its server process", async () => {
    const server = await startMcpServer("short-lived");
    const pid = server.transport.pid;
    expect(pid).toBeGreaterThan(0);
    servers.splice(servers.indexOf(server), 1);
    await server.client.close();
    const alive = () => {
      try {
        process.kill(pid as number, 0);
        return true;
      } catch {
        return false;
      }
    };
    await eventually(async () => expect(alive()).toBe(false), 10_000);
  });
});

describe("negotiation through the MCP server", () => {
  it("a buyer offers, the seller counters, the buyer accepts and buys at the agreed price", async () => {
    const seller = await startMcpServer("haggling seller");
    const buyer = await startMcpServer("haggling buyer");
    await seller.call("register", { name: "mcp haggling seller", hosted: true });
    const registered = await buyer.call("register", { name: "mcp haggling buyer", hosted: true });
    await faucet(registered.agent.wallet_address, 10_000_000n);
    const listing = await seller.call("create_listing", {
      title: "Translate a page",
      description: "English to French.",
      price_usdc: "5",
    });
    expect(listing).toMatchObject({ listing_type: "FIXED", is_negotiable: true });

    const offer = await buyer.call("make_offer", { listing_id: listing.id, price_usdc: "3", message: "3?" });
    expect(offer.offer).toMatchObject({ status: "OPEN", turn: "seller", price_wei: "3000000" });
    expect((await buyer.refused("accept_offer", { offer_id: offer.offer.id })).code).toBe("offer_not_your_turn");
    const received = await seller.call("list_offers", { role: "seller", status: "OPEN" });
    expect(received.offers.map((row: { id: string }) => row.id)).toEqual([offer.offer.id]);
    const countered = await seller.call("counter_offer", { offer_id: offer.offer.id, price_usdc: "4" });
    expect(countered.offer).toMatchObject({ status: "COUNTERED", turn: "buyer", price_wei: "4000000" });
    const accepted = await buyer.call("accept_offer", { offer_id: offer.offer.id, message: "Deal" });
    expect(accepted.offer).toMatchObject({ status: "ACCEPTED", price_wei: "4000000" });

    const bought = await buyer.call("buy_listing", {
      listing_id: listing.id,
      offer_id: offer.offer.id,
      expected_price_usdc: "4",
    });
    expect(bought).toMatchObject({ state: "FUNDED", amount_wei: "4000000" });
    expect(await usdcOf(registered.agent.wallet_address)).toBe(6_000_000n);
    expect((await seller.call("get_offer", { offer_id: offer.offer.id })).offer).toMatchObject({
      status: "PURCHASED",
      transaction_id: bought.transaction_id,
    });
  });
});

describe("proposals through the MCP server", () => {
  it("a poster posts a bounty that takes proposals, two agents pitch, the poster accepts one; the hunter delivers", async () => {
    const poster = await startMcpServer("proposal poster");
    const first = await startMcpServer("proposal hunter one");
    const second = await startMcpServer("proposal hunter two");
    const registered = await poster.call("register", { name: "mcp proposal poster", hosted: true });
    await faucet(registered.agent.wallet_address, 10_000_000n);
    await first.call("register", { name: "mcp proposal hunter one", hosted: true });
    const chosen = await second.call("register", { name: "mcp proposal hunter two", hosted: true });
    const bounty = await poster.call("create_listing", {
      title: "Port a parser",
      description: "From C to TypeScript.",
      price_usdc: "4",
      listing_type: "BOUNTY",
      accepts_proposals: true,
    });
    expect(bounty).toMatchObject({ listing_type: "BOUNTY", accepts_proposals: true, funding: { state: "FUNDED" } });
    expect((await first.refused("claim_bounty", { listing_id: bounty.id })).code).toBe("bounty_takes_proposals");

    const pitched = await first.call("make_proposal", { listing_id: bounty.id, pitch: "I port parsers", eta_hours: 6 });
    expect(pitched.proposal).toMatchObject({ status: "PENDING", eta_hours: 6 });
    const other = await second.call("make_proposal", { listing_id: bounty.id, pitch: "I wrote the C one" });
    const received = await poster.call("list_proposals", { listing_id: bounty.id });
    expect(received.proposals.map((row: { id: string }) => row.id).sort()).toEqual(
      [pitched.proposal.id, other.proposal.id].sort(),
    );
    expect((await first.refused("accept_proposal", { proposal_id: other.proposal.id })).code).toBe("forbidden");

    const accepted = await poster.call("accept_proposal", { proposal_id: other.proposal.id });
    expect(accepted).toMatchObject({ proposal: { status: "ACCEPTED" }, claim: { state: "FUNDED" } });
    expect((await first.call("get_proposal", { proposal_id: pitched.proposal.id })).proposal.status).toBe("DECLINED");
    const mine = await second.call("list_proposals", { role: "proposer", status: "ACCEPTED" });
    expect(mine.proposals.map((row: { id: string }) => row.id)).toEqual([other.proposal.id]);
    const delivered = await second.call("deliver", {
      transaction_id: accepted.claim.transaction_id,
      deliverable: "parser.ts",
    });
    expect(delivered).toMatchObject({ state: "DELIVERED" });
    expect(chosen.agent.id).toBe(accepted.proposal.agent.id);
  });
});
