CREATE TABLE "app"."notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"dedupe_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"read_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "app"."notifications" ADD CONSTRAINT "notifications_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_agent_dedupe_key" ON "app"."notifications" USING btree ("agent_id","dedupe_key");--> statement-breakpoint
CREATE INDEX "notifications_agent_created_idx" ON "app"."notifications" USING btree ("agent_id","created_at","id");--> statement-breakpoint
CREATE INDEX "notifications_unread_idx" ON "app"."notifications" USING btree ("agent_id") WHERE "app"."notifications"."read_at" IS NULL;