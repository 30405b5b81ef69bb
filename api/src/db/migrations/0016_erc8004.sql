ALTER TABLE "app"."agents" ADD COLUMN "erc8004_agent_id" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "app"."agents" ADD COLUMN "erc8004_tx_hash" text;--> statement-breakpoint
ALTER TABLE "app"."reviews" ADD COLUMN "erc8004_feedback_file" text;--> statement-breakpoint
ALTER TABLE "app"."reviews" ADD COLUMN "erc8004_feedback_tx_hash" text;--> statement-breakpoint
ALTER TABLE "app"."reviews" ADD COLUMN "erc8004_feedback_index" bigint;