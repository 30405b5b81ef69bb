/**
 * Notifications over real HTTP against `pnpm start`: a full bounty (posted, claimed, delivered,
 * released, reviewed, with a message) produces the expected notifications in the list, on the
 * poster's Server-Sent Events stream and at the hunter's webhook, a receiver started here that
 * fails its first answer (the delivery is retried) and checks every signature.
 */
import type { IncomingHttpHeaders } from "node:http";
import { verifyWebhook } from "@agent-marketplace/sdk";
import { describe, expect, inject, it } from "vitest";
import { eventStreamReader } from "../../api/test/event-stream.ts";
import { callApi, eventually, registerHostedAgent } from "./stack-process.ts";
import { startWebhookReceiver } from "./webhook-receiver.ts";

const { apiUrl } = inject("sharedStack");

interface Agent {
  id: string;
  key: string;
}

const call = (method: string, route: string, body?: unknown, key?: string) => callApi(apiUrl, method, route, body, key);

const hosted = (name: string, usdcWei = 0n): Promise<Agent> => registerHostedAgent(apiUrl, name, usdcWei);

describe("notifications over HTTP", () => {
  it("a full bounty notifies in the list, on the stream and at a signed, retried webhook", async () => {
    // Its first answer fails: the delivery must be retried.
    const receiver = await startWebhookReceiver((n) => (n === 1 ? 500 : 200));
    try {
      const poster = await hosted("poster", 20_000_000n);
      const hunter = await hosted("hunter");
      const hooked = await call("PATCH", "/api/agents/me", { webhook_url: receiver.url }, hunter.key);
      expect(hooked.status).toBe(200);
      const secret = hooked.body.webhook_secret as string;
      expect(secret).toMatch(/^whsec_/);

      const streamAbort = new AbortController();
      const streamResponse = await fetch(`${apiUrl}/api/notifications/stream`, {
        headers: { authorization: `Bearer ${poster.key}` },
        signal: streamAbort.signal,
      });
      expect(streamResponse.status).toBe(200);
      const stream = eventStreamReader(streamResponse.body as ReadableStream<Uint8Array>);
      expect((await stream.next()).event).toBe("ready");

      const bounty = await call(
        "POST",
        "/api/listings",
        {
          agent_id: poster.id,
          title: "Find the flaky test",
          description: "end to end",
          price_wei: "5000000",
          listing_type: "BOUNTY",
        },
        poster.key,
      );
      expect(bounty.status).toBe(201);
      const claimed = await call("POST", `/api/listings/${bounty.body.id}/claim`, {}, hunter.key);
      expect(claimed.status).toBe(200);
      const id = claimed.body.transaction_id as string;
      const steps: [string, string, unknown, string][] = [
        ["POST", `/api/transactions/${id}/deliver`, { deliverable: "it was the clock" }, hunter.key],
        ["POST", `/api/transactions/${id}/release`, {}, poster.key],
        ["POST", `/api/transactions/${id}/review`, { rating: 5, comment: "found it" }, poster.key],
        ["POST", `/api/transactions/${id}/review`, { rating: 4 }, hunter.key],
        ["POST", "/api/messages/send", { to_agent_id: hunter.id, content: "thanks" }, poster.key],
      ];
      for (const [method, route, body, key] of steps) {
        const answer = await call(method, route, body, key);
        expect(answer.status, `${route}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
      }

      const posterKinds = [
        "payment.funded",
        "listing.claimed",
        "transaction.delivered",
        "payment.released",
        "review.received",
      ];
      const hunterKinds = ["payment.released", "review.received", "message.received"];
      const kindsOf = async (agent: Agent) => {
        const { body } = await call("GET", "/api/notifications?limit=100", undefined, agent.key);
        return (body.notifications as { kind: string }[]).map((n) => n.kind).reverse();
      };
      // The list: chain events arrive through the indexer, the others with their request.
      await eventually(async () => expect((await kindsOf(poster)).sort()).toEqual([...posterKinds].sort()));
      await eventually(async () => expect((await kindsOf(hunter)).sort()).toEqual([...hunterKinds].sort()));
      const { body: unread } = await call("GET", "/api/notifications?unread=true", undefined, poster.key);
      expect(unread.unread_count).toBe(posterKinds.length);

      // The stream carried the poster's, each once.
      const streamed: string[] = [];
      while (streamed.length < posterKinds.length) {
        const event = await stream.next(20_000);
        expect(JSON.parse(event.data).id).toBe(event.id);
        streamed.push(event.event);
      }
      expect(streamed.sort()).toEqual([...posterKinds].sort());
      streamAbort.abort();
      await stream.close();

      // The webhook got the hunter's, signed; the first answer failed and was retried.
      const deliveries = await eventually(async () => {
        const { body } = await call("GET", "/api/agents/me/webhook/deliveries", undefined, hunter.key);
        expect(body.deliveries).toHaveLength(hunterKinds.length);
        for (const delivery of body.deliveries) expect(delivery.status).toBe("delivered");
        return body.deliveries as { kind: string; attempts: number }[];
      });
      expect(deliveries.map((d) => d.kind).sort()).toEqual([...hunterKinds].sort());
      expect(deliveries.map((d) => d.attempts).sort()).toEqual([1, 1, 2]);
      expect(receiver.received).toHaveLength(hunterKinds.length + 1);
      for (const request of receiver.received) {
        // Signed with a timestamp (t=…,v1=HMAC of "<t>.<body>"), as the SDK's helper verifies.
        expect(request.headers["x-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
        const event = await verifyWebhook(secret, request.headers["x-signature"], request.body);
        expect(event.agent_id).toBe(hunter.id);
      }
      const retried = receiver.received[0] as { headers: IncomingHttpHeaders };
      const again = receiver.received.filter(
        (request) => request.headers["x-notification-id"] === retried.headers["x-notification-id"],
      );
      expect(again.map((request) => request.headers["x-delivery-attempt"])).toEqual(["1", "2"]);
    } finally {
      receiver.close();
    }
  });
});
