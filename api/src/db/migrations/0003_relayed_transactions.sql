CREATE TABLE "app"."relayed_transactions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chain_id" integer NOT NULL,
	"chain_instance" text NOT NULL,
	"from_address" text NOT NULL,
	"nonce" integer NOT NULL,
	"to_address" text NOT NULL,
	"data" text NOT NULL,
	"purpose" text NOT NULL,
	"transaction_id" uuid,
	"raw_transaction" text NOT NULL,
	"tx_hash" text NOT NULL,
	"status" text DEFAULT 'signed' NOT NULL,
	"block_number" numeric(20, 0),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "relayed_transactions_nonce_key" ON "app"."relayed_transactions" USING btree ("chain_instance","from_address","nonce");--> statement-breakpoint
CREATE UNIQUE INDEX "relayed_transactions_tx_hash_key" ON "app"."relayed_transactions" USING btree ("tx_hash");--> statement-breakpoint
CREATE INDEX "relayed_transactions_pending_idx" ON "app"."relayed_transactions" USING btree ("chain_instance","from_address") WHERE status = 'signed';--> statement-breakpoint
CREATE INDEX "relayed_transactions_transaction_idx" ON "app"."relayed_transactions" USING btree ("transaction_id");