-- Spending caps of hosted agents (api/src/domain/wallet/spending-caps.ts): an owner's limits per agent, the moves the
-- service signed for each agent (a day's spending), and the moves waiting for the owner's approval.
CREATE TABLE "app"."agent_spends" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"action" text NOT NULL,
	"amount_wei" numeric(78, 0) NOT NULL,
	"tx_hash" text,
	"approval_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."spending_approvals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"owner_address" text,
	"action" text NOT NULL,
	"request" jsonb NOT NULL,
	"summary" text NOT NULL,
	"amount_wei" numeric(78, 0) NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"result" jsonb,
	"failure" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "app"."spending_limits" (
	"agent_id" uuid PRIMARY KEY NOT NULL,
	"per_purchase_wei" numeric(78, 0),
	"per_day_wei" numeric(78, 0),
	"approval_above_wei" numeric(78, 0),
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spending_limits_non_negative" CHECK ("app"."spending_limits"."per_purchase_wei" >= 0 AND "app"."spending_limits"."per_day_wei" >= 0 AND "app"."spending_limits"."approval_above_wei" >= 0)
);
--> statement-breakpoint
ALTER TABLE "app"."agent_spends" ADD CONSTRAINT "agent_spends_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."spending_approvals" ADD CONSTRAINT "spending_approvals_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."spending_limits" ADD CONSTRAINT "spending_limits_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_spends_agent_created_idx" ON "app"."agent_spends" USING btree ("agent_id","created_at");--> statement-breakpoint
CREATE INDEX "agent_spends_approval_idx" ON "app"."agent_spends" USING btree ("approval_id") WHERE approval_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "spending_approvals_agent_created_idx" ON "app"."spending_approvals" USING btree ("agent_id","created_at","id");--> statement-breakpoint
CREATE INDEX "spending_approvals_pending_idx" ON "app"."spending_approvals" USING btree ("agent_id") WHERE state = 'pending';