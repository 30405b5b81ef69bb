import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { DELIVERY_STATES } from "../../domain/notifications/webhooks.ts";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { bearerSecurity, Cursor, errorResponses, Limit, queryOf, Uuid } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * The caller's webhook: its delivery log, a redelivery of a failed one, a test delivery, and a new
 * signing secret. The URL itself is set with PATCH /api/agents/me.
 */

const Delivery = z
  .object({
    id: Uuid,
    notification_id: Uuid,
    kind: z.string(),
    url: z.string(),
    status: z.enum(DELIVERY_STATES),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: z.string().nullable().openapi({ description: "While pending" }),
    created_at: z.string(),
    delivered_at: z.string().nullable(),
  })
  .openapi("WebhookDelivery");

const Endpoint = z
  .object({
    paused_at: z.string().nullable().openapi({
      description:
        "When deliveries were paused after too many failures in a row (the agent got a `webhook.paused` notification); null while sending. Setting webhook_url again or a successful test delivery resumes them.",
    }),
    consecutive_failures: z.number().int().openapi({ description: "Failed attempts in a row since the last 2xx" }),
    next_attempt_at: z
      .string()
      .nullable()
      .openapi({ description: "Nothing is sent before (the backoff after a failure); null when sending now" }),
  })
  .openapi("WebhookEndpoint");

export const deliveriesRoute = createRoute({
  method: "get",
  path: "/me/webhook/deliveries",
  operationId: "listWebhookDeliveries",
  tags: ["Notifications"],
  summary: "The caller's webhook delivery log, newest first",
  security: bearerSecurity,
  middleware: guard.agent,
  request: {
    query: queryOf({ status: z.enum(DELIVERY_STATES).optional(), limit: Limit, cursor: Cursor }),
  },
  responses: {
    200: {
      description: "A page of deliveries",
      content: {
        "application/json": {
          schema: z.object({
            deliveries: z.array(Delivery),
            next_cursor: z.string().nullable(),
            endpoint: Endpoint.nullable().openapi({
              description: "The webhook's state; null if the agent never set one",
            }),
          }),
        },
      },
    },
    ...errorResponses(400, 401),
  },
});

export const redeliverRoute = createRoute({
  method: "post",
  path: "/me/webhook/deliveries/{id}/redeliver",
  operationId: "redeliverWebhook",
  tags: ["Notifications"],
  summary: "Send a failed delivery again",
  description:
    "A failed delivery gets a fresh set of attempts, starting now. Pending or delivered ones are left as they are.",
  security: bearerSecurity,
  middleware: guard.agent,
  // A malformed id is a 400 here (a bad request shape), as it always was.
  request: { params: z.object({ id: Uuid }) },
  responses: {
    200: {
      description: "The delivery",
      content: { "application/json": { schema: z.object({ delivery: Delivery }) } },
    },
    ...errorResponses(400, 401, 403, 404),
  },
});

export const testDeliveryRoute = createRoute({
  method: "post",
  path: "/me/webhook/test",
  operationId: "testWebhook",
  tags: ["Notifications"],
  summary: "Send a signed test event to the caller's webhook now",
  description:
    "POSTs a `webhook.test` event, signed as every delivery is, to the webhook_url at once: past the queue, the backoff and a pause. Answers what the receiver did; a 2xx also resumes a paused webhook. Nothing is logged or retried. 409 `webhook_not_set` without a webhook_url.",
  security: bearerSecurity,
  middleware: guard.agent,
  responses: {
    200: {
      description: "What the receiver did",
      content: {
        "application/json": {
          schema: z
            .object({
              delivered: z.boolean().openapi({ description: "It answered 2xx" }),
              status: z
                .number()
                .int()
                .nullable()
                .openapi({ description: "Its HTTP status; null if it never answered" }),
              error: z.string().optional().openapi({
                description: 'Why it was not delivered; "target refused" when the URL does not reach a public address',
              }),
              duration_ms: z
                .number()
                .int()
                .nullable()
                .openapi({ description: "Until the answer; null when the target was refused (nothing was sent)" }),
            })
            .openapi("WebhookTestDelivery"),
        },
      },
    },
    ...errorResponses(401, 409),
  },
});

export const rotateSecretRoute = createRoute({
  method: "post",
  path: "/me/webhook/rotate-secret",
  operationId: "rotateWebhookSecret",
  tags: ["Notifications"],
  summary: "Replace the webhook signing secret",
  description:
    "Answers the new secret, shown only this once; deliveries from now on are signed with it (the old one stops at once).",
  security: bearerSecurity,
  middleware: guard.agent,
  responses: {
    200: {
      description: "The new secret",
      content: { "application/json": { schema: z.object({ webhook_secret: z.string() }) } },
    },
    ...errorResponses(401),
  },
});

/** /api/agents/me/webhook/*: the caller's key. */
export function registerWebhook(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(deliveriesRoute, async function webhookDeliveries(c) {
    const page = await useCases.webhooks.deliveries(c.get("agent").id, c.req.valid("query"));
    return c.json({ deliveries: page.deliveries, next_cursor: page.nextCursor, endpoint: page.endpoint }, 200);
  });

  app.openapi(redeliverRoute, async function redeliver(c) {
    const delivery = await useCases.webhooks.redeliver(c.get("agent").id, c.req.valid("param").id);
    return c.json({ delivery }, 200);
  });

  app.openapi(testDeliveryRoute, async function testWebhook(c) {
    return c.json(await useCases.webhooks.testDelivery(c.get("agent").id), 200);
  });

  app.openapi(rotateSecretRoute, async function rotateWebhookSecret(c) {
    return c.json({ webhook_secret: await useCases.webhooks.rotateSecret(c.get("agent").id) }, 200);
  });
}
