/**
 * Agents that only poll, or only listen, miss no work: against the shared stack, a bounty posted in
 * a hunter's skill reaches an agent that follows /heartbeat.md within one beat (its notifications
 * step names the bounty as `bounty.matching`, its bounties step lists it) and an agent that only
 * listens, at its webhook (signed), within one delivery.
 */
import { verifyWebhook } from "@agent-marketplace/sdk";
import { describe, expect, inject, it } from "vitest";
import { callApi, eventually, json, registerHostedAgent } from "./stack-process.ts";
import { startWebhookReceiver } from "./webhook-receiver.ts";

const { apiUrl } = inject("sharedStack");

const call = (method: string, route: string, body?: unknown, key?: string) => callApi(apiUrl, method, route, body, key);

/** The requests of a beat, in the order /heartbeat.md lists them: each step's code block. */
async function heartbeatSteps(): Promise<string[]> {
  const response = await fetch(`${apiUrl}/heartbeat.md`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/markdown/);
  const text = await response.text();
  return [...text.matchAll(/```\n(GET \S+)\n```/g)].map(([, request]) => request as string);
}

/** One beat of an agent with `skill`: every step's GET, as the routine writes it, with the agent's values. */
async function beat(agent: { id: string; key: string }, skill: string) {
  const answers: Array<{ url: string; status: number; body: Awaited<ReturnType<typeof json>> }> = [];
  const steps = await heartbeatSteps();
  // Notifications, work owed, work waiting, bounties, messages, balance.
  expect(steps).toHaveLength(6);
  for (const step of steps) {
    const url = step
      .slice("GET ".length)
      .replaceAll("<you>", agent.id)
      .replaceAll("<skill>", encodeURIComponent(skill));
    // The routine names this deployment's own URLs.
    expect(url.startsWith(`${apiUrl}/api/`), url).toBe(true);
    const response = await fetch(url, { headers: { authorization: `Bearer ${agent.key}` } });
    answers.push({ url, status: response.status, body: await json(response) });
  }
  return answers;
}

describe("a new bounty reaches agents that poll and agents that listen", () => {
  it("one heartbeat finds it; one webhook delivery brings it", async () => {
    const receiver = await startWebhookReceiver(() => 200);
    try {
      const word = `zq${Date.now().toString(36)}`;
      const poller = await registerHostedAgent(apiUrl, "poller");
      expect((await call("PATCH", "/api/agents/me", { skills: ["coding"] }, poller.key)).status).toBe(200);
      // A listener as the live service's clients register one: the webhook with the registration.
      const registered = await call("POST", "/api/agents/register", {
        name: "listener",
        description: "writes code",
        skills: [word],
        webhook_url: receiver.url,
      });
      expect(registered.status).toBe(201);
      const listener = { id: registered.body.agent.id as string, key: registered.body.api_key as string };
      const secret = (registered.body.webhook_secret ?? registered.body.agent.webhook_secret) as string;
      expect(secret).toMatch(/^whsec_/);

      // Before the bounty, a beat runs clean: every step answers 200.
      const before = await beat(poller, "coding");
      expect(before.length).toBeGreaterThanOrEqual(5);
      for (const answer of before) expect(answer.status, answer.url).toBe(200);

      const poster = await registerHostedAgent(apiUrl, "bounty-poster", 10_000_000n);
      const bounty = await call(
        "POST",
        "/api/listings",
        {
          agent_id: poster.id,
          title: `Port the ${word} parser`,
          description: "A small job for someone who codes",
          category: "coding",
          price_wei: "2000000",
          listing_type: "BOUNTY",
        },
        poster.key,
      );
      expect(bounty.status, JSON.stringify(bounty.body)).toBe(201);
      const bountyId = bounty.body.id as string;

      // The poller's next beat lists it in the bounties step and names it in the notifications step
      // (told when the bounty opened, before the post answered).
      const next = await beat(poller, "coding");
      for (const answer of next) expect(answer.status, answer.url).toBe(200);
      const listed = next.find((answer) => answer.url.includes("listing_type=BOUNTY"));
      expect(listed?.body.listings.map((listing: { id: string }) => listing.id)).toContain(bountyId);
      const unread = next.find((answer) => answer.url.includes("/api/notifications"));
      const matching = unread?.body.notifications.filter(
        (n: { kind: string; payload: { listing_id?: string } }) =>
          n.kind === "bounty.matching" && n.payload.listing_id === bountyId,
      );
      expect(matching).toHaveLength(1);

      // The listener hears it at its webhook, signed.
      const delivery = await eventually(async () => {
        const found = receiver.received.find((request) => request.body.includes(bountyId));
        if (!found) throw new Error("no delivery yet");
        return found;
      }, 15_000);
      const event = await verifyWebhook(secret, delivery.headers["x-signature"] as string, delivery.body);
      expect(event.kind).toBe("bounty.matching");
      expect(event.agent_id).toBe(listener.id);
      expect(event.payload).toMatchObject({ listing_id: bountyId, price_wei: "2000000" });

      // The poster hears nothing of its own bounty.
      const own = await call("GET", "/api/notifications", undefined, poster.key);
      expect(own.body.notifications.filter((n: { kind: string }) => n.kind === "bounty.matching")).toEqual([]);
    } finally {
      receiver.close();
    }
  });
});
