import { identityRegistryAbi, reputationRegistryAbi } from "@agent-marketplace/contracts";
import { eq, sql } from "drizzle-orm";
import {
  type Address,
  createTestClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  keccak256,
  parseEther,
  parseEventLogs,
} from "viem";
import { hardhat } from "viem/chains";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { indexed, USDC } from "../../../test/escrow.ts";
import {
  createListing,
  get,
  json,
  newWallet,
  patch,
  post,
  registerAgent,
  registerHosted,
  registerWithWallet,
  type TestApp,
  testApp,
} from "../../../test/harness.ts";
import { agents, relayedTransactions } from "../../db/schema.ts";

/*
 * ERC-8004 on the suite's real chain, indexer and Postgres: hosted agents registered by their
 * custodial wallets (gas topped up by the relayer), external agents sending the call themselves
 * (fresh wallets given ETH by the node, no dev account), and hosted reviews given as feedback with
 * the escrow's release as proof of payment. Every claim is checked against the registries
 * themselves, read with viem.
 */

const stack = inject("stack");
const ORIGIN = "http://localhost";
const PRICE = 2_000_000n;
let t: TestApp;
let identityRegistry: Address;
let reputationRegistry: Address;
const testClient = createTestClient({ mode: "hardhat", transport: http(stack.rpcUrl) });

beforeAll(async () => {
  t = await testApp();
  identityRegistry = t.services.erc8004.identityRegistry;
  reputationRegistry = t.services.erc8004.reputationRegistry;
});
afterAll(() => t.close());

const chainClient = () => t.services.chain.publicClient;
const register = (key?: string, body: unknown = {}) => post(t.app, "/api/agents/me/erc8004/register", body, key);
const registrationUriOf = (agentId: string) => `${ORIGIN}/api/agents/${agentId}/registration.json`;

/** A fresh wallet the node gives 1 ETH, sending its own transactions. */
async function fundedWallet() {
  const account = newWallet();
  await testClient.setBalance({ address: account.address, value: parseEther("1") });
  const wallet = createWalletClient({ account, chain: hardhat, transport: http(stack.rpcUrl) });
  return { account, wallet };
}

/** `from` sends `call` itself; answers the receipt. */
async function send(from: Awaited<ReturnType<typeof fundedWallet>>, call: { to: string; data: string }) {
  const hash = await from.wallet.sendTransaction({ to: call.to as Address, data: call.data as Hex });
  return chainClient().waitForTransactionReceipt({ hash });
}

/** What the identity registry says of token `agentId`. */
async function onChainIdentity(agentId: bigint) {
  const at = { address: identityRegistry, abi: identityRegistryAbi, args: [agentId] } as const;
  const [owner, uri, agentWallet] = await Promise.all([
    chainClient().readContract({ ...at, functionName: "ownerOf" }),
    chainClient().readContract({ ...at, functionName: "tokenURI" }),
    chainClient().readContract({ ...at, functionName: "getAgentWallet" }),
  ]);
  return { owner, uri, agentWallet };
}

/** What the reputation registry holds of `client`'s feedback to `agentId`: its last index and that one. */
async function onChainFeedback(agentId: bigint, client: Address) {
  const at = { address: reputationRegistry, abi: reputationRegistryAbi } as const;
  const lastIndex = await chainClient().readContract({ ...at, functionName: "getLastIndex", args: [agentId, client] });
  const last =
    lastIndex > 0n
      ? await chainClient().readContract({ ...at, functionName: "readFeedback", args: [agentId, client, lastIndex] })
      : undefined;
  return { lastIndex, last };
}

/** The relayer's outbox rows sent from or to `address`. */
async function outboxRowsOf(address: Address) {
  return t.db
    .select()
    .from(relayedTransactions)
    .where(sql`${relayedTransactions.fromAddress} = ${address} OR ${relayedTransactions.toAddress} = ${address}`);
}

/** A hosted seller's listing bought, delivered and released by a hosted buyer. */
async function releasedPurchase(seller: { id: string; key: string }, buyer: { key: string }) {
  const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
  const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
  expect(bought.state).toBe("FUNDED");
  const id = bought.transaction_id as string;
  expect((await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "done" }, seller.key)).status).toBe(200);
  expect((await post(t.app, `/api/transactions/${id}/release`, {}, buyer.key)).status).toBe(200);
  return id;
}

describe("GET /api/agents/{id}/registration.json and /erc8004 before registration", () => {
  it("answer the EIP-8004 registration file with no registration, and registered: false", async () => {
    const created = await json(
      await post(t.app, "/api/agents/register", {
        name: "8004 file",
        hosted: true,
        bio: "Audits Solidity",
      }),
    );
    const id = created.agent.id as string;
    const key = created.api_key as string;
    expect(
      (await patch(t.app, "/api/agents/me", { metadata: { image: "https://img.example/a.png" } }, key)).status,
    ).toBe(200);

    const response = await get(t.app, `/api/agents/${id}/registration.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await json(response)).toEqual({
      type: "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
      name: "8004 file",
      description: "Audits Solidity",
      image: "https://img.example/a.png",
      services: [
        { name: "API", endpoint: `${ORIGIN}/api/agents/${id}` },
        { name: "MCP", endpoint: `${ORIGIN}/mcp` },
      ],
      x402Support: false,
      active: true,
      registrations: [],
      supportedTrust: ["reputation"],
    });

    expect(await json(await get(t.app, `/api/agents/${id}/erc8004`))).toEqual({
      agent_id: id,
      registered: false,
      erc8004_agent_id: null,
      registry: identityRegistry,
      registration_uri: registrationUriOf(id),
      owner: null,
      agent_wallet: null,
      tx_hash: null,
      feedback: { count: 0, average: null },
    });

    // Paused: the file says it is not active.
    expect((await patch(t.app, "/api/agents/me", { is_paused: true }, key)).status).toBe(200);
    expect((await json(await get(t.app, `/api/agents/${id}/registration.json`))).active).toBe(false);
  });

  it("name each FIXED listing on the market as an x402 service, and say x402Support while there is one", async () => {
    const agent = await registerAgent(t.app, "8004 x402 seller");
    const fixed = await createListing(t.app, agent, { price_wei: "1000000" });
    const paused = await createListing(t.app, agent, { price_wei: "2000000" });
    expect((await patch(t.app, `/api/listings/${paused.id}`, { is_active: false }, agent.key)).status).toBe(200);
    const file = await json(await get(t.app, `/api/agents/${agent.id}/registration.json`));
    expect(file.services).toEqual([
      { name: "API", endpoint: `${ORIGIN}/api/agents/${agent.id}` },
      { name: "MCP", endpoint: `${ORIGIN}/mcp` },
      { name: "x402", endpoint: `${ORIGIN}/api/listings/${fixed.id}/x402`, version: "2" },
    ]);
    expect(file.x402Support).toBe(true);
    expect((await patch(t.app, `/api/listings/${fixed.id}`, { is_active: false }, agent.key)).status).toBe(200);
    const none = await json(await get(t.app, `/api/agents/${agent.id}/registration.json`));
    expect(none.x402Support).toBe(false);
    expect(none.services).toHaveLength(2);
  });

  it("build every URL on PUBLIC_BASE_URL when it is set, whatever the request's origin", async () => {
    const configured = await testApp({ publicBaseUrl: "https://market.example" });
    try {
      const agent = await registerAgent(configured.app, "8004 configured");
      const file = await json(await get(configured.app, `/api/agents/${agent.id}/registration.json`));
      expect(file.services).toEqual([
        { name: "API", endpoint: `https://market.example/api/agents/${agent.id}` },
        { name: "MCP", endpoint: "https://market.example/mcp" },
      ]);
      const identity = await json(await get(configured.app, `/api/agents/${agent.id}/erc8004`));
      expect(identity.registration_uri).toBe(`https://market.example/api/agents/${agent.id}/registration.json`);
      const action = await json(await post(configured.app, "/api/agents/me/erc8004/register", {}, agent.key));
      expect(action.call.args.agentURI).toBe(identity.registration_uri);
    } finally {
      await configured.close();
    }
  });

  it("404 for an unknown agent, a path id that is not a uuid, and a review without a feedback file", async () => {
    const unknown = "6f1c2e9a-3b4d-4c5e-8f70-123456789abc";
    for (const path of [
      `/api/agents/${unknown}/registration.json`,
      `/api/agents/${unknown}/erc8004`,
      "/api/agents/not-a-uuid/registration.json",
      "/api/agents/not-a-uuid/erc8004",
      `/api/reviews/${unknown}/feedback.json`,
      "/api/reviews/not-a-uuid/feedback.json",
    ]) {
      const response = await get(t.app, path);
      expect(response.status, path).toBe(404);
      expect(await json(response)).toMatchObject({ code: "not_found" });
    }
  });
});

describe("POST /api/agents/me/erc8004/register, hosted", () => {
  it("the custodial wallet registers itself, its gas topped up exactly; a repeat sends nothing", async () => {
    const hosted = await registerHosted(t.app, "8004 hosted");
    const wallet = getAddress(hosted.wallet);
    expect(await chainClient().getBalance({ address: wallet })).toBe(0n);

    const response = await register(hosted.key);
    expect(response.status).toBe(201);
    const registered = await json(response);
    expect(registered).toEqual({
      agent_id: expect.stringMatching(/^\d+$/),
      registry: identityRegistry,
      registration_uri: registrationUriOf(hosted.id),
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    const agentId = BigInt(registered.agent_id);

    // The registry: the custodial wallet owns the token, its URI is the registration file, and the
    // registry set the wallet as the agent's payment wallet.
    expect(await onChainIdentity(agentId)).toEqual({
      owner: wallet,
      uri: registrationUriOf(hosted.id),
      agentWallet: wallet,
    });
    const registration = await chainClient().getTransaction({ hash: registered.tx_hash });
    expect(getAddress(registration.from)).toBe(wallet);

    // The top-up paid exactly what the registration could cost at most: gas limit × fee cap.
    const topUps = (await outboxRowsOf(wallet)).filter((row) => row.purpose === "gas top-up");
    expect(topUps).toHaveLength(1);
    const topUp = await chainClient().getTransaction({ hash: topUps[0]?.txHash as Hex });
    expect(topUp.value).toBe(registration.gas * (registration.maxFeePerGas ?? 0n));
    const receipt = await chainClient().getTransactionReceipt({ hash: registered.tx_hash });
    expect(await chainClient().getBalance({ address: wallet })).toBe(
      topUp.value - receipt.gasUsed * receipt.effectiveGasPrice,
    );

    const identity = await json(await get(t.app, `/api/agents/${hosted.id}/erc8004`));
    expect(identity).toEqual({
      agent_id: hosted.id,
      registered: true,
      erc8004_agent_id: registered.agent_id,
      registry: identityRegistry,
      registration_uri: registrationUriOf(hosted.id),
      owner: wallet,
      agent_wallet: wallet,
      tx_hash: registered.tx_hash,
      feedback: { count: 0, average: null },
    });
    const file = await json(await get(t.app, `/api/agents/${hosted.id}/registration.json`));
    expect(file.registrations).toEqual([
      { agentId: Number(agentId), agentRegistry: `eip155:${stack.deployment.chainId}:${identityRegistry}` },
    ]);

    // Again: the same identity, 200, and nothing sent from or to the wallet.
    const nonce = await chainClient().getTransactionCount({ address: wallet });
    const rows = (await outboxRowsOf(wallet)).length;
    const again = await register(hosted.key);
    expect(again.status).toBe(200);
    expect(await json(again)).toEqual(registered);
    expect(await chainClient().getTransactionCount({ address: wallet })).toBe(nonce);
    expect((await outboxRowsOf(wallet)).length).toBe(rows);
  });

  it("several requests at once register one identity, with one top-up", async () => {
    const hosted = await registerHosted(t.app, "8004 hosted at once");
    const responses = await Promise.all([1, 2, 3].map(() => register(hosted.key)));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 200, 201]);
    const answers = await Promise.all(responses.map(json));
    expect(new Set(answers.map((answer) => answer.agent_id)).size).toBe(1);
    expect(await chainClient().getTransactionCount({ address: hosted.wallet })).toBe(1);
    const rows = await outboxRowsOf(getAddress(hosted.wallet));
    expect(rows.map((row) => row.purpose).sort()).toEqual(["erc8004 register", "gas top-up"]);
  });

  it("refuses a tx_hash from a hosted agent, bad bodies and no key; records nothing", async () => {
    const hosted = await registerHosted(t.app, "8004 hosted refused");
    for (const [body, key] of [
      [{ tx_hash: `0x${"ab".repeat(32)}` }, hosted.key],
      [{ tx_hash: "0x12" }, hosted.key],
      [{ tx_hash: 7 }, hosted.key],
    ] as const) {
      const response = await register(key, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    const malformed = await t.app.request("/api/agents/me/erc8004/register", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${hosted.key}` },
      body: "{not json",
    });
    expect(malformed.status).toBe(400);
    expect((await register(undefined)).status).toBe(401);
    expect((await register("f".repeat(64))).status).toBe(401);
    const [row] = await t.db.select().from(agents).where(eq(agents.id, hosted.id));
    expect(row).toMatchObject({ erc8004AgentId: null, erc8004TxHash: null });
    expect(await chainClient().getTransactionCount({ address: hosted.wallet })).toBe(0);
    expect(await outboxRowsOf(getAddress(hosted.wallet))).toEqual([]);
  });
});

describe("POST /api/agents/me/erc8004/register, external", () => {
  it("answers the call to send, verifies the tx_hash it gets back, and refuses anyone else's", async () => {
    const own = await fundedWallet();
    const agent = await registerWithWallet(t.app, "8004 external", own.account.address);
    const uri = registrationUriOf(agent.id);

    const first = await register(agent.key);
    expect(first.status).toBe(202);
    const action = await json(first);
    expect(action).toMatchObject({
      status: "action_required",
      chain_id: stack.deployment.chainId,
      registry: identityRegistry,
      registration_uri: uri,
      call: { to: identityRegistry, function: "register(string agentURI)", args: { agentURI: uri } },
    });

    // Refused proofs: never mined, not a registration, another owner, another URI.
    const foreign = await fundedWallet();
    const byForeignWallet = await send(foreign, action.call);
    const otherUri = await send(own, t.services.erc8004.registerCall(`${ORIGIN}/elsewhere.json`));
    const notARegistration = await send(own, { to: foreign.account.address, data: "0x" });
    const refusals: [Hex, string][] = [
      [`0x${"cd".repeat(32)}`, "tx_not_found"],
      [notARegistration.transactionHash, "not_a_registration"],
      [byForeignWallet.transactionHash, "wrong_owner"],
      [otherUri.transactionHash, "wrong_agent_uri"],
    ];
    for (const [txHash, code] of refusals) {
      const response = await register(agent.key, { tx_hash: txHash });
      expect(response.status, code).toBe(400);
      expect(await json(response)).toMatchObject({ code, error: expect.any(String) });
    }
    await indexed(t.db, otherUri);
    expect((await json(await get(t.app, `/api/agents/${agent.id}/erc8004`))).registered).toBe(false);

    const sent = await send(own, action.call);
    const done = await register(agent.key, { tx_hash: sent.transactionHash });
    expect(done.status).toBe(201);
    const registered = await json(done);
    expect(registered).toEqual({
      agent_id: expect.stringMatching(/^\d+$/),
      registry: identityRegistry,
      registration_uri: uri,
      tx_hash: sent.transactionHash,
    });
    expect(await onChainIdentity(BigInt(registered.agent_id))).toEqual({
      owner: own.account.address,
      uri,
      agentWallet: own.account.address,
    });
    expect(await json(await get(t.app, `/api/agents/${agent.id}/erc8004`))).toMatchObject({
      registered: true,
      erc8004_agent_id: registered.agent_id,
      owner: own.account.address,
      tx_hash: sent.transactionHash,
    });
    // Again, with or without the proof: the same identity.
    for (const body of [{}, { tx_hash: sent.transactionHash }]) {
      const again = await register(agent.key, body);
      expect(again.status).toBe(200);
      expect(await json(again)).toEqual(registered);
    }

    // The same proof replayed by another external agent: refused, nothing recorded for either.
    const other = await fundedWallet();
    const replayer = await registerWithWallet(t.app, "8004 replayer", other.account.address);
    const replayed = await register(replayer.key, { tx_hash: sent.transactionHash });
    expect(replayed.status).toBe(400);
    expect(await json(replayed)).toMatchObject({ code: "wrong_owner" });
    const [replayerRow] = await t.db.select().from(agents).where(eq(agents.id, replayer.id));
    expect(replayerRow).toMatchObject({ erc8004AgentId: null, erc8004TxHash: null });
    expect((await json(await get(t.app, `/api/agents/${replayer.id}/erc8004`))).registered).toBe(false);
    expect(await json(await get(t.app, `/api/agents/${agent.id}/erc8004`))).toMatchObject({
      erc8004_agent_id: registered.agent_id,
      tx_hash: sent.transactionHash,
    });
  });

  it("an identity the indexer saw the wallet register is answered without a tx_hash", async () => {
    const own = await fundedWallet();
    const agent = await registerWithWallet(t.app, "8004 external, no callback", own.account.address);
    const sent = await send(own, t.services.erc8004.registerCall(registrationUriOf(agent.id)));
    await indexed(t.db, sent);
    const registered = parseEventLogs({ abi: identityRegistryAbi, eventName: "Registered", logs: sent.logs })[0];
    const file = await json(await get(t.app, `/api/agents/${agent.id}/registration.json`));
    expect(file.registrations).toEqual([
      { agentId: Number(registered?.args.agentId), agentRegistry: t.services.erc8004.agentRegistry },
    ]);
    const response = await register(agent.key);
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({
      agent_id: registered?.args.agentId.toString(),
      registry: identityRegistry,
      registration_uri: registrationUriOf(agent.id),
      tx_hash: sent.transactionHash,
    });
  });

  it("another agent's key registers that agent only", async () => {
    const owner = await registerAgent(t.app, "8004 owner");
    const intruder = await registerAgent(t.app, "8004 intruder");
    const answer = await json(await register(intruder.key));
    expect(answer.registration_uri).toBe(registrationUriOf(intruder.id));
    expect(JSON.stringify(answer)).not.toContain(owner.id);
    const [row] = await t.db.select().from(agents).where(eq(agents.id, owner.id));
    expect(row).toMatchObject({ erc8004AgentId: null, erc8004TxHash: null });
  });
});

describe("reviews given as ERC-8004 feedback", () => {
  it("a hosted buyer's review of a registered seller: feedback with the release as proof of payment", async () => {
    const seller = await registerHosted(t.app, "8004 reviewed seller");
    const buyer = await registerHosted(t.app, "8004 reviewing buyer", 10n * USDC);
    const identity = await json(await register(seller.key));
    const agentId = BigInt(identity.agent_id);
    const transactionId = await releasedPurchase(seller, buyer);

    const response = await post(
      t.app,
      `/api/transactions/${transactionId}/review`,
      { rating: 4, comment: "Solid" },
      buyer.key,
    );
    expect(response.status).toBe(201);
    const { review } = await json(response);
    expect(review.erc8004_feedback).toEqual({ tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/), feedback_index: 1 });

    // The registry stored it from the buyer's wallet: 4 stars are 80 on the 0-100 "starred" scale.
    const buyerWallet = getAddress(buyer.wallet);
    expect(await onChainFeedback(agentId, buyerWallet)).toEqual({
      lastIndex: 1n,
      last: [80n, 0, "starred", "agent-marketplace", false],
    });

    // The event names the served file, and commits to its exact bytes.
    const receipt = await chainClient().getTransactionReceipt({ hash: review.erc8004_feedback.tx_hash });
    const [event] = parseEventLogs({ abi: reputationRegistryAbi, eventName: "NewFeedback", logs: receipt.logs });
    const feedbackUri = `${ORIGIN}/api/reviews/${review.id}/feedback.json`;
    expect(event?.args).toMatchObject({
      agentId,
      clientAddress: buyerWallet,
      feedbackIndex: 1n,
      endpoint: `${ORIGIN}/api/agents/${seller.id}`,
      feedbackURI: feedbackUri,
    });
    const served = await get(t.app, new URL(feedbackUri).pathname);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toMatch(/^application\/json/);
    const bytes = new Uint8Array(await served.arrayBuffer());
    expect(event?.args.feedbackHash).toBe(keccak256(bytes));

    const transaction = await json(await get(t.app, `/api/transactions/${transactionId}`));
    const file = JSON.parse(new TextDecoder().decode(bytes));
    expect(file).toEqual({
      agentRegistry: `eip155:${stack.deployment.chainId}:${identityRegistry}`,
      agentId: Number(agentId),
      clientAddress: `eip155:${stack.deployment.chainId}:${buyerWallet}`,
      createdAt: review.created_at,
      value: 80,
      valueDecimals: 0,
      tag1: "starred",
      tag2: "agent-marketplace",
      endpoint: `${ORIGIN}/api/agents/${seller.id}`,
      proofOfPayment: {
        fromAddress: buyerWallet,
        toAddress: getAddress(seller.wallet),
        chainId: String(stack.deployment.chainId),
        txHash: transaction.release_tx_hash,
      },
      agentMarketplace: {
        reviewId: review.id,
        transactionId,
        rating: 4,
        comment: "Solid",
        escrowContract: stack.deployment.contracts.AgentEscrow.address,
        escrowId: transaction.escrow_id_bytes32,
      },
    });
    expect(transaction.release_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);

    expect((await json(await get(t.app, `/api/agents/${seller.id}/erc8004`))).feedback).toEqual({
      count: 1,
      average: "80.00",
    });
    const listed = await json(await get(t.app, `/api/agents/${seller.id}/reviews`));
    expect(listed.reviews[0]).toMatchObject({ id: review.id, erc8004_feedback: review.erc8004_feedback });

    // The seller reviews the buyer, who has no identity: nothing is sent from the seller's wallet.
    const sellerNonce = await chainClient().getTransactionCount({ address: seller.wallet });
    const back = await post(t.app, `/api/transactions/${transactionId}/review`, { rating: 5 }, seller.key);
    expect(back.status).toBe(201);
    const backReview = (await json(back)).review;
    expect(backReview.erc8004_feedback).toBeNull();
    expect(await chainClient().getTransactionCount({ address: seller.wallet })).toBe(sellerNonce);
    expect((await get(t.app, `/api/reviews/${backReview.id}/feedback.json`)).status).toBe(404);
    // A repeat review is refused, and no second feedback is given.
    expect((await post(t.app, `/api/transactions/${transactionId}/review`, { rating: 1 }, buyer.key)).status).toBe(409);
    expect((await onChainFeedback(agentId, buyerWallet)).lastIndex).toBe(1n);
  });

  it("the review stands when the chain refuses the feedback: erc8004_feedback null, nothing sent", async () => {
    const seller = await registerHosted(t.app, "8004 seller with a stale identity");
    const buyer = await registerHosted(t.app, "8004 buyer of it", 10n * USDC);
    const transactionId = await releasedPurchase(seller, buyer);
    // A recorded token the registry does not have (as after a chain reset): giveFeedback reverts.
    await t.db
      .update(agents)
      .set({ erc8004AgentId: "999999", erc8004TxHash: `0x${"ee".repeat(32)}` })
      .where(eq(agents.id, seller.id));
    const response = await post(t.app, `/api/transactions/${transactionId}/review`, { rating: 5 }, buyer.key);
    expect(response.status).toBe(201);
    const { review } = await json(response);
    expect(review).toMatchObject({ rating: 5, erc8004_feedback: null });
    expect(await chainClient().getTransactionCount({ address: buyer.wallet })).toBe(0);
    expect(await outboxRowsOf(getAddress(buyer.wallet))).toEqual([]);
    expect((await get(t.app, `/api/reviews/${review.id}/feedback.json`)).status).toBe(404);
  });
});
