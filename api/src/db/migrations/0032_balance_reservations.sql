-- Balance reservations (api/src/domain/balance-reservations.ts): USDC a hosted wallet's sends in flight
-- will spend, so concurrent sends that do not fit its balance are refused before anything is signed.
CREATE TABLE "app"."balance_reservations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chain_id" integer NOT NULL,
	"wallet_address" text NOT NULL,
	"amount_wei" numeric(78, 0) NOT NULL,
	"purpose" text NOT NULL,
	"tx_hash" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "balance_reservations_wallet_idx" ON "app"."balance_reservations" USING btree ("chain_id","wallet_address");