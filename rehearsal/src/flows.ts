/**
 * The money flows of the rehearsal, driven through the SDK as agents drive them, with each service
 * killed once in the middle of one: hosted agents buying and selling; an external (BYOB) buyer
 * funding without ETH by an EIP-3009 authorization over Circle's real domain; a dispute ruled 70/30 by
 * the arbiter's desk; a delivery nobody releases, released by the keeper after the dispute window;
 * a hosted seller's withdrawal; a buyer with only a wallet paying over x402 with the stock
 * @x402/fetch client (Base's USDC is one of its default assets: no setting at all) and releasing by
 * its receipt token. Every step's expected movement of USDC is written down (Ledger), to
 * be checked against the chain at the end.
 */
import { BASE_CHAIN_ID } from "@agent-marketplace/contracts";
import {
  createMarketplaceClient,
  fundWithWallet,
  type MarketplaceClient,
  MarketplaceError,
  moveWithWallet,
  type PayListingX402PostReturnType,
  type WalletSigner,
} from "@agent-marketplace/sdk";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { type Address, createPublicClient, createWalletClient, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type BaseChain, baseAt } from "./base-chain.ts";
import type { Ledger } from "./ledger.ts";
import type { Services } from "./services.ts";

export interface Agent {
  id: string;
  key: string;
  wallet: Address;
  client: MarketplaceClient;
}

const USDC = 1_000_000n;

/** Polls until `check` passes, for at most `ms`. */
export async function eventually<T>(what: string, check: () => Promise<T>, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw new Error(`${what}: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

function expectEqual<T>(what: string, actual: T, expected: T) {
  if (actual !== expected) throw new Error(`${what}: expected ${String(expected)}, got ${String(actual)}`);
}

export function createFlows(base: BaseChain, services: Services, ledger: Ledger) {
  const chain = baseAt(base.rpcUrl);
  const transport = http(base.rpcUrl);

  async function register(name: string, options: { usdc?: bigint; external?: boolean; webhookUrl?: string } = {}) {
    const client = createMarketplaceClient({ baseUrl: services.apiUrl });
    let signer: WalletSigner | undefined;
    let walletAddress: Address | undefined;
    if (options.external) {
      const account = privateKeyToAccount(generatePrivateKey());
      signer = {
        wallet: createWalletClient({ account, chain, transport }),
        publicClient: createPublicClient({ chain, transport }),
      };
      walletAddress = account.address;
      // Gas for its own transactions (it funds by signature, but delivers or disputes itself).
      await base.testClient.setBalance({ address: account.address, value: parseEther("1") });
    }
    const answer = await client.registerAgent({
      name,
      bio: "rehearsal",
      ...(walletAddress ? { wallet_address: walletAddress } : { hosted: true }),
      ...(options.webhookUrl && { webhook_url: options.webhookUrl }),
    });
    const agent: Agent = {
      id: answer.agent.id,
      key: answer.api_key,
      wallet: answer.agent.wallet_address as Address,
      client,
    };
    ledger.track(name, agent.wallet);
    if (options.usdc) await ledger.mint(name, agent.wallet, options.usdc);
    return { ...agent, signer };
  }

  async function listing(seller: Agent, title: string, price: bigint) {
    const created = await seller.client.createListing({
      agent_id: seller.id,
      title,
      description: `${title}: done with care, delivered as a report.`,
      price_wei: price.toString(),
    });
    return created.id;
  }

  const state = async (agent: Agent, transactionId: string) =>
    (await agent.client.getTransaction({ id: transactionId })).state;

  return {
    register,
    listing,
    state,

    /** Hosted buyer, hosted seller: buy, deliver, release. */
    async hostedPurchase(buyer: Agent, seller: Agent, listingId: string, price: bigint) {
      const bought = await buyer.client.buyListing({ id: listingId });
      expectEqual("hosted buy", bought.state, "FUNDED");
      ledger.pay(buyer.wallet, price);
      const transactionId = bought.transaction_id;
      await seller.client.deliverWork({ id: transactionId, deliverable: "The report: all checks pass." });
      const released = await buyer.client.releaseEscrow({ id: transactionId });
      expectEqual("release", released.state, "RELEASED");
      ledger.settle(seller.wallet, price, 10_000n);
      return transactionId;
    },

    /**
     * An external buyer signs Circle's EIP-3009 authorization (no ETH spent on funding); the seller
     * delivers; the buyer disputes; the arbiter's desk rules `sellerBps` to the seller.
     */
    async byobDisputed(
      buyer: Agent & { signer?: WalletSigner },
      seller: Agent,
      listingId: string,
      price: bigint,
      sellerBps: number,
    ) {
      if (!buyer.signer) throw new Error("the BYOB buyer has no wallet");
      const pending = await buyer.client.buyListing({ id: listingId });
      expectEqual("BYOB buy", pending.state, "PENDING");
      const funded = await fundWithWallet(buyer.client, buyer.signer, pending, { gasless: true });
      expectEqual("gasless funding over Circle's domain", funded.state, "FUNDED");
      ledger.pay(buyer.wallet, price);
      const transactionId = pending.transaction_id;
      await seller.client.deliverWork({ id: transactionId, deliverable: "A partial report." });
      // An external party sends its own moves: the API answers the call, the wallet sends it.
      await moveWithWallet(buyer.client, buyer.signer, transactionId, "dispute", {
        reason: "Half of what was promised is missing.",
      });
      const desk = createMarketplaceClient({ baseUrl: services.apiUrl, apiKey: services.arbiterApiKey });
      const resolved = await desk.resolveDispute({
        id: transactionId,
        seller_bps: sellerBps,
        note: "Half the work was delivered well; the rest was not.",
      });
      // A ruling ends the escrow: RELEASED when the seller gets a share, REFUNDED when none.
      expectEqual("ruling", resolved.state, sellerBps > 0 ? "RELEASED" : "REFUNDED");
      ledger.settle(seller.wallet, price, BigInt(sellerBps), buyer.wallet);
      return transactionId;
    },

    /**
     * A buyer with a wallet and no API key pays over x402 with the stock @x402/fetch client, unset:
     * Base's USDC is a default asset of its exact scheme (paid up to $1 without a setting). The
     * seller delivers; the buyer releases early by its receipt token (the operator sends it).
     */
    async x402Purchase(seller: Agent, listingId: string, price: bigint) {
      const payer = privateKeyToAccount(generatePrivateKey());
      ledger.track("x402 payer", payer.address);
      await ledger.mint("x402 payer", payer.address, 5n * USDC);
      const client = new x402Client().register(`eip155:${BASE_CHAIN_ID}`, new ExactEvmScheme(payer));
      const { x402 } = await seller.client.getListing({ id: listingId });
      if (!x402) throw new Error("the listing has no x402 endpoint");
      const paid = await wrapFetchWithPayment(fetch, client)(`${services.apiUrl}${x402.endpoint}`, { method: "POST" });
      const bought = (await paid.json()) as PayListingX402PostReturnType;
      expectEqual("x402 purchase", `${paid.status} ${bought.state}`, "201 FUNDED");
      ledger.pay(payer.address, price);
      await seller.client.deliverWork({ id: bought.transaction_id, deliverable: "Checked; all good." });
      const receipt = createMarketplaceClient({ baseUrl: services.apiUrl, apiKey: bought.receipt_token });
      const released = await receipt.releaseEscrow({ id: bought.transaction_id });
      expectEqual("released by the receipt token", released.state, "RELEASED");
      ledger.settle(seller.wallet, price, 10_000n);
      return bought.transaction_id;
    },

    /** Funded and delivered, then left: the keeper releases it once the dispute window has passed. */
    async deliveredAndLeft(buyer: Agent, seller: Agent, listingId: string, price: bigint) {
      const bought = await buyer.client.buyListing({ id: listingId });
      expectEqual("buy", bought.state, "FUNDED");
      ledger.pay(buyer.wallet, price);
      await seller.client.deliverWork({ id: bought.transaction_id, deliverable: "Done; nobody will answer." });
      return bought.transaction_id;
    },

    /**
     * A purchase whose request is in flight when `interrupt` kills the API, then handled as the API
     * tells clients to: the same Idempotency-Key again (the stored answer, or 409 when the first run
     * was cut off after money may have moved: then read the buyer's transactions before trying a
     * new key). One escrow, paid once.
     */
    async buyAcrossInterrupt(buyer: Agent, listingId: string, price: bigint, interrupt: () => Promise<void>) {
      const buy = (idempotencyKey: string) =>
        buyer.client.transport.send<{ transaction_id: string; state: string }>("post", "/api/listings/{id}/buy", {
          params: { id: listingId },
          body: {},
          idempotencyKey,
        });
      const recorded = async () => {
        const { transactions } = await buyer.client.listTransactions({ agent_id: buyer.id });
        return transactions.filter((transaction) => transaction.listing_id === listingId);
      };
      const key = crypto.randomUUID();
      const first = buy(key).then(
        (answer) => ({ answer, error: undefined }),
        (error: unknown) => ({ answer: undefined, error }),
      );
      await interrupt();
      const outcome = await first;
      let transactionId = outcome.answer?.transaction_id;
      let how = "answered before the kill";
      if (!transactionId) {
        try {
          transactionId = (await buy(key)).transaction_id;
          how = "the retry with the same key was answered";
        } catch (error) {
          if (!(error instanceof MarketplaceError && error.body.code === "idempotency_key_in_progress")) throw error;
          const found = await recorded();
          transactionId = found[0]?.id ?? (await buy(crypto.randomUUID())).transaction_id;
          how = found[0]
            ? "409: found among the buyer's transactions"
            : "409 and nothing recorded: bought with a new key";
        }
      }
      console.log(`  purchase ${how}`);
      const id = transactionId;
      await eventually(
        "the interrupted purchase FUNDED",
        async () => expectEqual("state", await state(buyer, id), "FUNDED"),
        120_000,
      );
      expectEqual("escrows for the interrupted purchase", (await recorded()).length, 1);
      ledger.pay(buyer.wallet, price);
      return id;
    },

    /** A hosted seller sends its USDC to a wallet of its owner's. */
    async withdraw(seller: Agent, to: Address, amount: bigint) {
      await seller.client.withdrawUsdc({ destination_address: to, amount_wei: amount.toString() });
      ledger.transfer(seller.wallet, to, amount);
    },
  };
}

export { USDC };
