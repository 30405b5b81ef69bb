import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import { requireAgent } from "../auth/require-agent.ts";
import { keysetPage, olderThanCursor, timestampPosition } from "../db/cursor.ts";
import { agents, notifications, webhookDeliveries } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { forbidden, notFound } from "../domain/errors.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";
import { newWebhookSecret } from "../notifications/webhook-secret.ts";
import { bearerSecurity, Cursor, errorResponses, Limit, Uuid } from "../schemas/common.ts";

/*
 * The caller's webhook: its delivery log (each notification sent to its webhook_url, attempts and
 * the receiver's last answer), a redelivery of a failed one, and a new signing secret. The URL
 * itself is set with PATCH /api/agents/me.
 */

const DELIVERY_STATES = ["pending", "delivered", "failed"] as const;

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

export function webhookRoutes(deps: Deps) {
  const { db, config } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("/api/agents/me/webhook/*", requireAgent(db));

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/agents/me/webhook/deliveries",
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
    }),
    async (c) => {
      const { status, limit, cursor } = c.req.valid("query");
      const conditions: (SQL | undefined)[] = [
        eq(webhookDeliveries.agentId, c.get("agent").id),
        status && eq(webhookDeliveries.status, status),
        olderThanCursor(webhookDeliveries.createdAt, webhookDeliveries.id, cursor),
      ];
      const rows = await db
        .select({
          delivery: webhookDeliveries,
          kind: notifications.kind,
          position: timestampPosition(webhookDeliveries.createdAt),
        })
        .from(webhookDeliveries)
        .innerJoin(notifications, eq(notifications.id, webhookDeliveries.notificationId))
        .where(and(...conditions))
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .limit(limit + 1);
      const { page, nextCursor } = keysetPage(rows, limit, (row) => ({ at: row.position, id: row.delivery.id }));
      return c.json(
        { deliveries: page.map((row) => toDelivery(row.delivery, row.kind)), next_cursor: nextCursor },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/agents/me/webhook/deliveries/{id}/redeliver",
      tags: ["Notifications"],
      summary: "Send a failed delivery again",
      description:
        "A failed delivery gets a fresh set of attempts, starting now. Pending or delivered ones are left as they are.",
      security: bearerSecurity,
      request: { params: z.object({ id: Uuid }) },
      responses: {
        200: {
          description: "The delivery",
          content: { "application/json": { schema: z.object({ delivery: Delivery }) } },
        },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const [found] = await db
        .select({ delivery: webhookDeliveries, kind: notifications.kind })
        .from(webhookDeliveries)
        .innerJoin(notifications, eq(notifications.id, webhookDeliveries.notificationId))
        .where(eq(webhookDeliveries.id, id));
      if (!found) throw notFound("Webhook delivery");
      if (found.delivery.agentId !== c.get("agent").id) throw forbidden("This delivery belongs to another agent");
      const [retried] = await db
        .update(webhookDeliveries)
        .set({ status: "pending", attempts: 0, nextAttemptAt: sql`now()`, lastError: null })
        .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, "failed")))
        .returning();
      return c.json({ delivery: toDelivery(retried ?? found.delivery, found.kind) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/agents/me/webhook/rotate-secret",
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
    }),
    async (c) => {
      const me = c.get("agent").id;
      const { secret, sealed } = newWebhookSecret(me, config.masterKey);
      await db.update(agents).set({ webhookSecretEncrypted: sealed, updatedAt: new Date() }).where(eq(agents.id, me));
      return c.json({ webhook_secret: secret }, 200);
    },
  );

  return app;
}

function toDelivery(d: typeof webhookDeliveries.$inferSelect, kind: string): z.infer<typeof Delivery> {
  return {
    id: d.id,
    notification_id: d.notificationId,
    kind,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    next_attempt_at: d.status === "pending" ? d.nextAttemptAt.toISOString() : null,
    created_at: d.createdAt.toISOString(),
    delivered_at: d.deliveredAt?.toISOString() ?? null,
  };
}
