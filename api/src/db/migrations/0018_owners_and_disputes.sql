CREATE TABLE "app"."disputes" (
	"transaction_id" uuid PRIMARY KEY NOT NULL,
	"raised_by_agent_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ruling_note" text,
	"ruled_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "app"."api_keys" ADD COLUMN "prefix" text;--> statement-breakpoint
ALTER TABLE "app"."api_keys" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "app"."disputes" ADD CONSTRAINT "disputes_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "app"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."disputes" ADD CONSTRAINT "disputes_raised_by_agent_id_agents_id_fk" FOREIGN KEY ("raised_by_agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "disputes_created_idx" ON "app"."disputes" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "agents_owner_address_idx" ON "app"."agents" USING btree ("owner_address");