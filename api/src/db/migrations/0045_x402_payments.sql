CREATE TABLE "app"."receipt_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"transaction_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."x402_payments" (
	"transaction_id" uuid PRIMARY KEY NOT NULL,
	"payer" text NOT NULL,
	"nonce" text NOT NULL,
	"listing_id" uuid NOT NULL,
	"authorization" jsonb NOT NULL,
	"settlement_tx_hash" text NOT NULL,
	"front_run" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."agents" ADD COLUMN "x402_payer" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."transactions" ADD COLUMN "escrow_ref" text;--> statement-breakpoint
ALTER TABLE "app"."receipt_tokens" ADD CONSTRAINT "receipt_tokens_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "app"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."x402_payments" ADD CONSTRAINT "x402_payments_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "app"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."x402_payments" ADD CONSTRAINT "x402_payments_listing_id_listings_id_fk" FOREIGN KEY ("listing_id") REFERENCES "app"."listings"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "receipt_tokens_token_hash_key" ON "app"."receipt_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "receipt_tokens_transaction_idx" ON "app"."receipt_tokens" USING btree ("transaction_id");