/**
 * The live service's request field names over real HTTP against the shared `pnpm start` stack,
 * each request sent exactly as its clients (MCP package, skill.md, examples) send it: webhook_url
 * and description at registration, categories and a numeric price_wei on a listing, proposal_text
 * and proposed_price_wei on a proposal, a numeric amount_wei, review_text on a review. Each effect
 * is read back; a matching agent hears of the new bounty (bounty.matching) at its webhook.
 */
import { verifyWebhook } from "@agent-marketplace/sdk";
import { describe, expect, inject, it } from "vitest";
import { callApi, eventually, registerHostedAgent } from "./stack-process.ts";
import { startWebhookReceiver } from "./webhook-receiver.ts";

const { apiUrl } = inject("sharedStack");

const call = (method: string, route: string, body?: unknown, key?: string) => callApi(apiUrl, method, route, body, key);

describe("the live service's field names", () => {
  it("are honoured in registration, listings, proposals, transactions and reviews", async () => {
    const receiver = await startWebhookReceiver();
    try {
      // Registration as its quick start writes it: description is the bio; webhook_url is set.
      const registered = await call("POST", "/api/agents/register", {
        name: "live-client hunter",
        description: "I write and review Solidity",
        skills: ["coding", "solidity"],
        webhook_url: receiver.url,
      });
      expect(registered.status).toBe(201);
      const secret = registered.body.webhook_secret as string;
      expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
      const hunter = { id: registered.body.agent.id as string, key: registered.body.api_key as string };
      const me = await call("GET", "/api/agents/me", undefined, hunter.key);
      expect(me.body).toMatchObject({
        bio: "I write and review Solidity",
        webhook_url: receiver.url,
        skills: ["coding", "solidity"],
        notify_matching_bounties: true,
      });

      const poster = await registerHostedAgent(apiUrl, "live-client poster", 30_000_000n);
      // A listing with categories and a numeric price.
      const fixed = await call(
        "POST",
        "/api/listings",
        {
          agent_id: poster.id,
          title: "Code review",
          description: "I review a pull request",
          price_wei: 2500000,
          categories: ["coding"],
        },
        poster.key,
      );
      expect(fixed.status).toBe(201);
      expect(fixed.body).toMatchObject({ category: "coding", price_wei: "2500000", price_usdc: "2.50" });
      const read = await call("GET", `/api/listings/${fixed.body.id}`);
      expect(read.body).toMatchObject({ category: "coding", price_wei: "2500000" });

      // A bounty the same way: the hunter's skills match its category and its words.
      const bounty = await call(
        "POST",
        "/api/listings",
        {
          agent_id: poster.id,
          title: "Audit a Solidity escrow",
          description: "Find the bugs",
          price_wei: 8500000,
          categories: ["coding"],
          listing_type: "BOUNTY",
          accepts_proposals: true,
        },
        poster.key,
      );
      expect(bounty.status).toBe(201);
      expect(bounty.body).toMatchObject({ category: "coding", price_wei: "8500000", funding: { state: "FUNDED" } });

      // Pushed: in the list and at the webhook, signed.
      const matching = await call("GET", "/api/notifications", undefined, hunter.key);
      const notice = matching.body.notifications.find((n: { kind: string }) => n.kind === "bounty.matching");
      expect(notice.payload).toMatchObject({
        listing_id: bounty.body.id,
        price_wei: "8500000",
        price_usdc: "8.50",
        category: "coding",
        propose_with: `POST /api/listings/${bounty.body.id}/proposals`,
      });
      const pushed = await eventually(async () => {
        const request = receiver.received.find((r) => r.body.includes(bounty.body.id));
        if (!request) throw new Error("not delivered yet");
        return request;
      });
      const event = await verifyWebhook(secret, pushed.headers["x-signature"], pushed.body);
      expect(event).toMatchObject({ agent_id: hunter.id });
      expect(pushed.body).toContain("bounty.matching");

      // A proposal as the live clients send it: proposal_text and proposed_price_wei.
      const other = await registerHostedAgent(apiUrl, "live-client bidder");
      const pricier = await call(
        "POST",
        `/api/listings/${bounty.body.id}/proposals`,
        { proposal_text: "Full audit with tests", proposed_price_wei: "9000000" },
        other.key,
      );
      expect(pricier.status).toBe(201);
      expect(pricier.body.proposal).toMatchObject({ pitch: "Full audit with tests", proposed_price_wei: "9000000" });
      const atReward = await call(
        "POST",
        `/api/listings/${bounty.body.id}/proposals`,
        { proposal_text: "Audit at the reward", proposed_price_wei: 8500000 },
        hunter.key,
      );
      expect(atReward.status).toBe(201);
      const shown = await call("GET", `/api/listings/${bounty.body.id}/proposals`, undefined, poster.key);
      expect(
        Object.fromEntries(
          shown.body.proposals.map((p: { pitch: string; proposed_price_wei: string }) => [
            p.pitch,
            p.proposed_price_wei,
          ]),
        ),
      ).toEqual({ "Full audit with tests": "9000000", "Audit at the reward": "8500000" });
      // Pre-funded: another price than the reward is refused, and both stay pending.
      const refused = await call("POST", `/api/proposals/${pricier.body.proposal.id}/accept`, {}, poster.key);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: "proposal_price_differs" });
      const still = await call("GET", `/api/listings/${bounty.body.id}/proposals`, undefined, poster.key);
      expect(still.body.proposals.map((p: { status: string }) => p.status)).toEqual(["PENDING", "PENDING"]);
      const accepted = await call("POST", `/api/proposals/${atReward.body.proposal.id}/accept`, {}, poster.key);
      expect(accepted.status).toBe(200);
      const transactionId = accepted.body.claim.transaction_id as string;
      expect(
        (await call("POST", `/api/transactions/${transactionId}/deliver`, { deliverable: "report" }, hunter.key))
          .status,
      ).toBe(200);
      expect((await call("POST", `/api/transactions/${transactionId}/release`, {}, poster.key)).status).toBe(200);

      // A review with review_text.
      const reviewed = await call(
        "POST",
        `/api/transactions/${transactionId}/review`,
        { rating: 5, review_text: "Thorough audit" },
        poster.key,
      );
      expect(reviewed.status).toBe(201);
      expect(reviewed.body.review).toMatchObject({ rating: 5, comment: "Thorough audit" });
      const reviews = await call("GET", `/api/agents/${hunter.id}/reviews`);
      expect(reviews.body.reviews.map((r: { comment: string }) => r.comment)).toContain("Thorough audit");

      // A direct transaction with a numeric amount_wei.
      const direct = await call(
        "POST",
        "/api/transactions",
        { buyer_agent_id: poster.id, seller_agent_id: hunter.id, amount_wei: 1000000, description: "tip" },
        poster.key,
      );
      expect(direct.status).toBe(201);
      expect(direct.body).toMatchObject({ amount_wei: "1000000", state: "FUNDED" });
    } finally {
      receiver.close();
    }
  });
});
