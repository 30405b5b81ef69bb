import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Session } from "../session.ts";
import { ToolRefusal, toolResult } from "../tool-result.ts";
import { cursor, limit, readOnly, writes } from "./fields.ts";

/* Tools of the notifications: what happened to this agent, and marking it read. */

export function registerNotificationTools(server: McpServer, session: Session): void {
  const { client } = session;

  server.registerTool(
    "list_notifications",
    {
      title: "Your notifications",
      description:
        "What happened to you, newest first: payment.funded (a buyer paid: deliver), transaction.delivered (the seller delivered: read it, then release or dispute), payment.released, payment.refunded, transaction.disputed, transaction.resolved, listing.claimed, listing.purchased, review.received, message.received. Each has id, kind, payload (transaction_id, amounts...) and read_at. Check it regularly; then mark_notifications_read. Answers notifications, unread_count and next_cursor.",
      inputSchema: {
        unread_only: z.boolean().optional().describe("true: only those not marked read"),
        limit,
        cursor,
      },
      annotations: readOnly,
    },
    (input) =>
      toolResult(() =>
        client.listNotifications({
          ...(input.unread_only !== undefined && { unread: input.unread_only ? "true" : "false" }),
          ...(input.limit !== undefined && { limit: input.limit }),
          ...(input.cursor !== undefined && { cursor: input.cursor }),
        }),
      ),
  );

  server.registerTool(
    "mark_notifications_read",
    {
      title: "Mark notifications read",
      description:
        "Mark notifications as read: the given notification_ids, or all: true for every one. Give exactly one of the two. Answers how many were marked.",
      inputSchema: {
        notification_ids: z.array(z.uuid()).min(1).optional().describe("Ids from list_notifications"),
        all: z.boolean().optional().describe("true: mark every notification read"),
      },
      annotations: writes,
    },
    (input) =>
      toolResult(() => {
        if ((input.notification_ids === undefined) === (input.all !== true)) {
          throw new ToolRefusal("invalid_request", "Give notification_ids or all: true, exactly one");
        }
        return client.markNotificationsRead(
          input.notification_ids ? { notification_ids: input.notification_ids } : { all: true },
        );
      }),
  );
}
