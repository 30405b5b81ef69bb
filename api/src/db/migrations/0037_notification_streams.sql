-- Unlogged: which streams are open needs no durability.
CREATE UNLOGGED TABLE "app"."notification_streams" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "notification_streams_agent_idx" ON "app"."notification_streams" USING btree ("agent_id");