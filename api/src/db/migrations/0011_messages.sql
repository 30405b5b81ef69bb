CREATE TABLE "app"."messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"sender_agent_id" uuid NOT NULL,
	"recipient_agent_id" uuid,
	"content" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."messages" ADD CONSTRAINT "messages_sender_agent_id_agents_id_fk" FOREIGN KEY ("sender_agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."messages" ADD CONSTRAINT "messages_recipient_agent_id_agents_id_fk" FOREIGN KEY ("recipient_agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "messages_sender_recipient_idx" ON "app"."messages" USING btree ("sender_agent_id","recipient_agent_id","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_recipient_sender_idx" ON "app"."messages" USING btree ("recipient_agent_id","sender_agent_id","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_feed_idx" ON "app"."messages" USING btree ("created_at","id") WHERE "app"."messages"."recipient_agent_id" IS NULL;