import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { DELIVERY_STATES } from "../../domain/webhooks.ts";
import type { AppEnv } from "../../http/env.ts";
import { bearerSecurity, Cursor, errorResponses, Limit, Uuid } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * The caller's webhook: its delivery log, a redelivery of a failed one, and a new signing secret.
 * The URL itself is set with PATCH /api/agents/me.
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

export const deliveriesRoute = createRoute({
  method: "get",
  path: "/me/webhook/deliveries",
  tags: ["Notifications"],
  summary: "The caller's webhook delivery log, newest first",
  security: bearerSecurity,
  request: {
    query: z.strictObject({ status: z.enum(DELIVERY_STATES).optional(), limit: Limit, cursor: Cursor }),
  },
  responses: {
    200: {
      description: "A page of deliveries",
      content: {
        "application/json": {
          schema: z.object({ deliveries: z.array(Delivery), next_cursor: z.string().nullable() }),
        },
      },
    },
    ...errorResponses(400, 401),
  },
});

export const redeliverRoute = createRoute({
  method: "post",
  path: "/me/webhook/deliveries/{id}/redeliver",
  tags: ["Notifications"],
  summary: "Send a failed delivery again",
  description:
    "A failed delivery gets a fresh set of attempts, starting now. Pending or delivered ones are left as they are.",
  security: bearerSecurity,
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

export const rotateSecretRoute = createRoute({
  method: "post",
  path: "/me/webhook/rotate-secret",
  tags: ["Notifications"],
  summary: "Replace the webhook signing secret",
  description:
    "Answers the new secret, shown only this once; deliveries from now on are signed with it (the old one stops at once).",
  security: bearerSecurity,
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
    return c.json({ deliveries: page.deliveries, next_cursor: page.nextCursor }, 200);
  });

  app.openapi(redeliverRoute, async function redeliver(c) {
    const delivery = await useCases.webhooks.redeliver(c.get("agent").id, c.req.valid("param").id);
    return c.json({ delivery }, 200);
  });

  app.openapi(rotateSecretRoute, async function rotateWebhookSecret(c) {
    return c.json({ webhook_secret: await useCases.webhooks.rotateSecret(c.get("agent").id) }, 200);
  });
}
