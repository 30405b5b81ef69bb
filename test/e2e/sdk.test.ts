/**
 * The SDK against `pnpm start` over real HTTP: every client function at least once, with the
 * errors it throws; the BYOB helpers with a dev account's wallet (approve + fund, a gasless
 * funding signature, a gasless release, a move sent as a transaction, an ERC-8004 registration);
 * a retried write that reaches the API once; the committed API types equal to what the running
 * API's OpenAPI document generates; and the README's examples, run as written.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { readDeployment } from "@agent-marketplace/contracts";
import {
  buyWithWallet,
  collect,
  createMarketplaceClient,
  fundWithWallet,
  type MarketplaceClient,
  MarketplaceError,
  moveWithWallet,
  paginate,
  registerIdentityWithWallet,
  type WalletSigner,
} from "@agent-marketplace/sdk";
import { type Address, createPublicClient, createWalletClient, erc20Abi, http, type PublicClient } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";
import { createSiweMessage } from "viem/siwe";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { HAND_WRITTEN } from "../../sdk/scripts/actions.ts";
import { differencesFromDocument, handWrittenFiles } from "../../sdk/scripts/generated-files.ts";
import { nodeBinary, repoRoot } from "./stack-process.ts";

const run = promisify(execFile);

const MNEMONIC = "test test test test test test test test test test test junk";
const PRICE = 3_000_000n;

const { env, apiUrl } = inject("sharedStack");
let publicClient: PublicClient;
let usdc: Address;
let arbiterKey: string;

beforeAll(async () => {
  publicClient = createPublicClient({ chain: hardhat, transport: http(`http://127.0.0.1:${env.HARDHAT_PORT}`) });
  const deployment = readDeployment(31337, env.DEPLOYMENTS_DIR);
  if (!deployment) throw new Error("no deployment");
  usdc = deployment.contracts.USDC.address;
  arbiterKey = readFileSync(path.join(env.DATA_DIR, "arbiter.key"), "utf8").trim();
});

const client = (apiKey?: string) => createMarketplaceClient({ baseUrl: apiUrl, apiKey });

/** A hosted agent with its own client (the client keeps the key registration answers). */
async function hosted(name: string, usdcWei = 0n) {
  const agent = client();
  const { agent: profile } = await agent.registerAgent({ name, hosted: true });
  if (usdcWei > 0n) await agent.requestTestUsdc({ address: profile.wallet_address, usdc_wei: usdcWei.toString() });
  return { client: agent, id: profile.id, wallet: profile.wallet_address as Address };
}

/** An external agent whose wallet is dev account `index` (10,000 USDC from pnpm start). */
async function external(name: string, index: number) {
  const account = mnemonicToAccount(MNEMONIC, { addressIndex: index });
  const agent = client();
  const { agent: profile } = await agent.registerAgent({ agent_name: name, wallet_address: account.address });
  const signer: WalletSigner = {
    wallet: createWalletClient({ account, chain: hardhat, transport: http(`http://127.0.0.1:${env.HARDHAT_PORT}`) }),
    publicClient,
  };
  return { client: agent, id: profile.id, wallet: account.address, account, signer };
}

const usdcOf = (address: Address) =>
  publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] });

async function listing(
  seller: { client: MarketplaceClient; id: string },
  type: "FIXED" | "BOUNTY" = "FIXED",
  title = `${type} through the SDK`,
) {
  return seller.client.createListing({
    agent_id: seller.id,
    title,
    description: "sdk end to end",
    price_wei: PRICE.toString(),
    listing_type: type,
  });
}

/** The error a call throws, which must be a MarketplaceError. */
async function refusal(call: Promise<unknown>): Promise<MarketplaceError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(MarketplaceError);
  return error as MarketplaceError;
}

describe("the SDK over HTTP", () => {
  it("the committed API types, idempotent writes, value lists and actions are what the running API's document generates", async () => {
    const document = await (await fetch(`${apiUrl}/api/openapi.json`)).json();
    // Every generated file (src/openapi-types.ts, idempotent-operations.ts, enums.ts, src/actions),
    // a hand-written module for each operation of HAND_WRITTEN, and no action module the document
    // has no operation for. Fix: `pnpm start`, then `pnpm --filter @agent-marketplace/sdk generate`.
    expect(await differencesFromDocument(document)).toEqual([]);
    const hand = handWrittenFiles(document).map((file) => path.basename(file, ".ts"));
    expect(hand.sort()).toEqual(Object.keys(HAND_WRITTEN).sort());
  });

  it("agents, listings and pages; errors keep the status and the API's code", async () => {
    const seller = await hosted("sdk seller");
    expect((await seller.client.getMe()).id).toBe(seller.id);
    const updated = await seller.client.updateMe({ bio: "writes audits", skills: ["solidity"] });
    expect(updated).toMatchObject({ bio: "writes audits", skills: ["solidity"] });
    expect((await client().getAgent({ id: seller.id })).name).toBe("sdk seller");
    expect((await client().listAgents({ keyword: "sdk seller" })).agents.map((a) => a.id)).toContain(seller.id);
    expect(await client().getAddressBalance({ address: seller.wallet })).toMatchObject({ usdc_wei: "0" });
    expect(await client().getWalletBalance({ agent_id: seller.id })).toMatchObject({ address: seller.wallet });

    const word = `sdkword${Date.now()}`;
    const [first, second, third] = await Promise.all(
      [1, 2, 3].map((n) => listing(seller, "FIXED", `Audit ${word} ${n}`)),
    );
    if (!first || !second || !third) throw new Error("three listings");
    const made = [first, second, third] as const;
    expect((await client().getListing({ id: made[0].id })).title).toBe(`Audit ${word} 1`);
    const renamed = await seller.client.updateListing({ id: made[0].id, title: `Renamed ${word}` });
    expect(renamed.title).toBe(`Renamed ${word}`);
    await seller.client.deleteListing({ id: made[2].id });
    // Every page, one listing a page: the two active ones, nothing twice.
    const mine = await collect(
      paginate(
        (cursor) => client().browseListings({ keyword: word, limit: 1, cursor }),
        (page) => page.listings,
      ),
    );
    expect(mine.map((l) => l.id).sort()).toEqual([made[0].id, made[1].id].sort());

    const anonymous = await refusal(client().getMe());
    expect(anonymous).toMatchObject({ status: 401, code: "unauthorized" });
    expect(anonymous.body.error).toEqual(expect.any(String));
    expect(await refusal(client().getListing({ id: "6f1c2e9a-3b4d-4c5e-8f70-123456789abc" }))).toMatchObject({
      status: 404,
    });
    const bad = await refusal(seller.client.createListing({ agent_id: seller.id, title: "" } as never));
    expect(bad).toMatchObject({ status: 400 });
    const other = await hosted("sdk other");
    expect(await refusal(other.client.updateListing({ id: made[1].id, title: "mine now" }))).toMatchObject({
      status: 403,
      code: "forbidden",
    });
  });

  it("a FIXED purchase, its records, reviews, reputation and a refused move", async () => {
    const seller = await hosted("sdk fixed seller");
    const buyer = await hosted("sdk fixed buyer", 10n * PRICE);
    const item = await listing(seller);
    const bought = await buyer.client.buyListing({ id: item.id });
    expect(bought).toMatchObject({ state: "FUNDED" });
    const id = (bought as { transaction_id: string }).transaction_id;
    const early = await refusal(buyer.client.releaseEscrow({ id }));
    expect(early).toMatchObject({ status: 409 });
    expect(await seller.client.deliverWork({ id, deliverable: "the audit" })).toMatchObject({ state: "DELIVERED" });
    expect(await buyer.client.releaseEscrow({ id })).toMatchObject({ state: "RELEASED" });
    expect((await client().getTransaction({ id })).state).toBe("RELEASED");
    expect((await client().listTransactions({ agent_id: buyer.id })).transactions.map((t) => t.id)).toContain(id);
    expect((await buyer.client.getTimeline({ id })).events.length).toBeGreaterThan(2);
    expect((await buyer.client.getDeliverable({ id })).content).toBe("the audit");
    await buyer.client.reviewTransaction({ id, rating: 5, comment: "thorough" });
    await seller.client.reviewTransaction({ id, rating: 4 });
    expect((await client().listAgentReviews({ id: seller.id })).review_count).toBe(1);
    expect((await client().getReputation({ id: seller.id })).completed_transactions).toBe(1);
    expect((await client().verifyReputation({ id: seller.id })).matches).toBe(true);
  });

  it("a bounty claimed; a direct transaction disputed, with evidence, resolved by the arbiter", async () => {
    const poster = await hosted("sdk poster", 10n * PRICE);
    const hunter = await hosted("sdk hunter");
    const bounty = await listing(poster, "BOUNTY");
    const claimed = await hunter.client.claimListing({ id: bounty.id });
    expect(claimed).toMatchObject({ transaction_id: expect.any(String) });

    const direct = await poster.client.createTransaction({
      buyer_agent_id: poster.id,
      seller_agent_id: hunter.id,
      amount_wei: PRICE.toString(),
      description: "a direct job",
    });
    expect(direct).toMatchObject({ state: "FUNDED" });
    const id = (direct as { transaction_id: string }).transaction_id;
    await hunter.client.deliverWork({ id, deliverable: "half of it" });
    expect(await poster.client.openDispute({ id, reason: "half" })).toMatchObject({ state: "DISPUTED" });
    await poster.client.addEvidence({ id, content: "only half was delivered" });
    const arbiter = client(arbiterKey);
    const ruled = await arbiter.resolveDispute({ id, seller_bps: 5_000 });
    expect(ruled).toMatchObject({ state: "RELEASED" });
  });

  it("BYOB: approve + fund, a gasless funding, a gasless release, a refund sent as a transaction, a refused move", async () => {
    const seller = await hosted("sdk byob seller");
    const buyer = await external("sdk byob buyer", 4);
    const before = await usdcOf(buyer.wallet);

    const first = await listing(seller);
    const funded = await buyWithWallet(buyer.client, buyer.signer, first.id);
    expect(funded).toMatchObject({ state: "FUNDED" });
    const firstId = (funded as { transaction_id: string }).transaction_id;
    await seller.client.deliverWork({ id: firstId, deliverable: "done" });
    expect(await moveWithWallet(buyer.client, buyer.signer, firstId, "release", {}, { gasless: true })).toMatchObject({
      state: "RELEASED",
    });

    const second = await listing(seller);
    const pending = await buyer.client.buyListing({ id: second.id });
    expect(pending).toMatchObject({ state: "PENDING" });
    const gasless = await fundWithWallet(buyer.client, buyer.signer, pending as never, { gasless: true });
    expect(gasless).toMatchObject({ state: "FUNDED" });
    const secondId = (gasless as { transaction_id: string }).transaction_id;
    // The seller refunds (hosted).
    await seller.client.refundEscrow({ id: secondId });
    expect((await client().getTransaction({ id: secondId })).state).toBe("REFUNDED");
    // The buyer cancels an undelivered purchase itself, with a transaction from its wallet.
    const third = await buyWithWallet(buyer.client, buyer.signer, (await listing(seller)).id);
    const thirdId = (third as { transaction_id: string }).transaction_id;
    expect(await moveWithWallet(buyer.client, buyer.signer, thirdId, "refund", {})).toMatchObject({
      state: "REFUNDED",
    });
    // A move the state does not allow is refused before anything is sent.
    const refused = await refusal(moveWithWallet(buyer.client, buyer.signer, thirdId, "release", {}));
    expect(refused).toMatchObject({ status: 409 });
    // Paid the released purchase only; both refunds came back.
    expect(await usdcOf(buyer.wallet)).toBe(before - PRICE);
  });

  it("a write whose answer was lost is retried with its Idempotency-Key and happens once", async () => {
    const seller = await hosted("sdk retry seller");
    const buyer = await hosted("sdk retry buyer", 10n * PRICE);
    const item = await listing(seller);
    const keys: string[] = [];
    let dropped = false;
    const flaky = createMarketplaceClient({
      baseUrl: apiUrl,
      apiKey: buyer.client.apiKey,
      async fetch(input, init) {
        const response = await fetch(input, init);
        if (String(input).endsWith("/buy")) {
          keys.push(new Headers(init?.headers).get("idempotency-key") ?? "");
          if (!dropped) {
            dropped = true;
            throw new TypeError("fetch failed: the answer was lost on the way back");
          }
        }
        return response;
      },
    });
    const bought = await flaky.buyListing({ id: item.id });
    expect(bought).toMatchObject({ state: "FUNDED" });
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    const purchases = (await client().listTransactions({ agent_id: buyer.id })).transactions;
    expect(purchases).toHaveLength(1);
    expect((await client().getListing({ id: item.id })).times_purchased).toBe(1);
  });

  it("wallet, messages, feed, notifications and their stream, webhooks", async () => {
    const alice = await hosted("sdk alice", 5_000_000n);
    const bob = await hosted("sdk bob");
    const withdrawn = await alice.client.withdrawUsdc({ destination_address: bob.wallet, amount_wei: "1000000" });
    expect(withdrawn).toMatchObject({ withdrawal_id: expect.any(String) });
    expect((await alice.client.listWithdrawals()).withdrawals).toHaveLength(1);

    const stream = bob.client.streamNotifications();
    const ready = await stream.next();
    expect(ready.value).toMatchObject({ event: "ready" });
    await alice.client.sendMessage({ to_agent_id: bob.id, content: "hello bob" });
    const live = await stream.next();
    expect(live.value).toMatchObject({ event: "message.received", data: { payload: { preview: "hello bob" } } });
    await stream.return(undefined);
    const conversations = await bob.client.listConversations();
    expect("conversations" in conversations && conversations.conversations[0]?.peer.id).toBe(alice.id);
    expect((await bob.client.getConversation({ peer_agent_id: alice.id })).messages[0]?.content).toBe("hello bob");
    await alice.client.postToFeed({ content: "sdk feed post" });
    expect(
      (await client().listFeed({ limit: 20 })).items.some(
        (item) => "content" in item && item.content === "sdk feed post",
      ),
    ).toBe(true);

    const inbox = await bob.client.listNotifications({ unread: "true" });
    expect(inbox.unread_count).toBe(1);
    expect(await bob.client.markNotificationsRead({ all: true })).toEqual({ marked: 1, unread_count: 0 });

    const hooked = await bob.client.updateMe({ webhook_url: "http://127.0.0.1:9/hook" });
    expect(hooked).toMatchObject({ webhook_secret: expect.stringMatching(/^whsec_/) });
    expect((await bob.client.rotateWebhookSecret()).webhook_secret).toMatch(/^whsec_/);
    await alice.client.sendMessage({ to_agent_id: bob.id, content: "to the webhook" });
    const log = await bob.client.listWebhookDeliveries();
    expect(log.deliveries).toHaveLength(1);
    const delivery = log.deliveries[0] as { id: string };
    expect((await bob.client.redeliverWebhook({ id: delivery.id })).delivery.id).toBe(delivery.id);
    expect(await refusal(alice.client.redeliverWebhook({ id: delivery.id }))).toMatchObject({ status: 403 });
  });

  it("ERC-8004 identities (hosted, and BYOB from a wallet), feedback, keys and owner sessions", async () => {
    const seller = await hosted("sdk identity seller");
    const buyer = await hosted("sdk identity buyer", 10n * PRICE);
    const registered = await seller.client.registerErc8004();
    expect(registered).toMatchObject({ agent_id: expect.any(String), tx_hash: expect.any(String) });
    expect((await client().getErc8004Identity({ id: seller.id })).registered).toBe(true);
    expect((await client().getRegistrationFile({ id: seller.id })).name).toBe("sdk identity seller");
    const bought = (await buyer.client.buyListing({ id: (await listing(seller)).id })) as { transaction_id: string };
    await seller.client.deliverWork({ id: bought.transaction_id, deliverable: "x" });
    await buyer.client.releaseEscrow({ id: bought.transaction_id });
    const { review } = await buyer.client.reviewTransaction({ id: bought.transaction_id, rating: 5 });
    expect(review.erc8004_feedback?.tx_hash).toEqual(expect.any(String));
    expect((await client().getFeedbackFile({ id: review.id })).proofOfPayment).toBeDefined();

    const owner = await external("sdk owner", 9);
    expect(await registerIdentityWithWallet(owner.client, owner.signer)).toMatchObject({
      agent_id: expect.any(String),
    });
    const oldKey = owner.client.apiKey;
    await owner.client.rotateKey();
    expect(owner.client.apiKey).not.toBe(oldKey);
    const challenge = await client().getKeyChallenge({ address: owner.wallet });
    const rotated = client();
    await rotated.rotateKeyWithSignature({
      address: owner.wallet,
      nonce: challenge.nonce,
      signature: await owner.account.signMessage({ message: challenge.message }),
    });
    expect((await rotated.getMe()).id).toBe(owner.id);

    const { nonce } = await client().getSiweNonce();
    const host = new URL(apiUrl).host;
    const message = createSiweMessage({
      address: owner.wallet,
      chainId: 31337,
      domain: host,
      nonce,
      uri: apiUrl,
      version: "1",
    });
    const { session_token } = await client().login({
      message,
      signature: await owner.account.signMessage({ message }),
    });
    const session = client(session_token);
    expect((await session.getSession()).agents.map((agent) => agent.id)).toContain(owner.id);
    await session.logout();
    expect(await refusal(session.getSession())).toMatchObject({ status: 401 });
  });

  it("the README's examples are the files in sdk/examples, and they run as written", async () => {
    const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
    for (const [file, expected] of [
      ["hosted-purchase.ts", /^RELEASED \d/m],
      ["byob-purchase.ts", /state: 'RELEASED'/],
    ] as const) {
      const source = readFileSync(path.join(repoRoot, "sdk", "examples", file), "utf8");
      expect(readme, `README shows ${file}`).toContain(source.trimEnd());
      const { stdout } = await run(nodeBinary(), [path.join(repoRoot, "sdk", "examples", file)], {
        cwd: repoRoot,
        env: {
          ...process.env,
          MARKETPLACE_API_URL: apiUrl,
          RPC_URL: `http://127.0.0.1:${env.HARDHAT_PORT}`,
        },
      });
      expect(stdout, file).toMatch(expected);
    }
  });

  it("the platform: health, stats, info", async () => {
    expect((await client().getHealth()).status).toBe("ok");
    expect((await client().getStats()).active_agents).toBeGreaterThan(0);
    expect(Object.keys(await client().getInfo())).toContain("for_agents");
  });
});
