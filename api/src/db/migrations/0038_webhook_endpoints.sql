-- Webhook endpoints (api/src/notifications/webhook-sender.ts): one delivery in flight per endpoint,
-- a backoff after each failure in a row, and a circuit that pauses an endpoint. Every agent with a
-- webhook URL or a pending delivery gets its row.
CREATE TABLE "app"."webhook_endpoints" (
	"agent_id" uuid PRIMARY KEY NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"leased_until" timestamp with time zone DEFAULT now() NOT NULL,
	"paused_at" timestamp with time zone
);
--> statement-breakpoint
DROP INDEX "app"."webhook_deliveries_due_idx";--> statement-breakpoint
ALTER TABLE "app"."webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "app"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_endpoints_ready_idx" ON "app"."webhook_endpoints" USING btree ("leased_until") WHERE paused_at IS NULL;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_agent_due_idx" ON "app"."webhook_deliveries" USING btree ("agent_id","next_attempt_at","id") WHERE status = 'pending';--> statement-breakpoint
INSERT INTO "app"."webhook_endpoints" ("agent_id")
SELECT "id" FROM "app"."agents" WHERE "webhook_url" IS NOT NULL
UNION
SELECT "agent_id" FROM "app"."webhook_deliveries" WHERE "status" = 'pending';
