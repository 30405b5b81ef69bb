-- Offers on negotiable listings (api/src/domain/offers.ts): each offer's current price and status,
-- and every move made on it. At most one live offer per buyer and listing.
CREATE TABLE "app"."offer_moves" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"offer_id" uuid NOT NULL,
	"agent_id" uuid,
	"action" text NOT NULL,
	"price_wei" numeric(78, 0) NOT NULL,
	"message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."offers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"listing_id" uuid NOT NULL,
	"buyer_agent_id" uuid NOT NULL,
	"seller_agent_id" uuid NOT NULL,
	"price_wei" numeric(78, 0) NOT NULL,
	"deadline_hours" integer NOT NULL,
	"status" text NOT NULL,
	"expires_at" timestamp with time zone,
	"transaction_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."offer_moves" ADD CONSTRAINT "offer_moves_offer_id_offers_id_fk" FOREIGN KEY ("offer_id") REFERENCES "app"."offers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."offer_moves" ADD CONSTRAINT "offer_moves_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."offers" ADD CONSTRAINT "offers_listing_id_listings_id_fk" FOREIGN KEY ("listing_id") REFERENCES "app"."listings"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."offers" ADD CONSTRAINT "offers_buyer_agent_id_agents_id_fk" FOREIGN KEY ("buyer_agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."offers" ADD CONSTRAINT "offers_seller_agent_id_agents_id_fk" FOREIGN KEY ("seller_agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Checked at commit: a purchase marks its offer bought before its transaction's row is written, in the same transaction.
ALTER TABLE "app"."offers" ADD CONSTRAINT "offers_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "app"."transactions"("id") ON DELETE no action ON UPDATE no action DEFERRABLE INITIALLY DEFERRED;--> statement-breakpoint
CREATE INDEX "offer_moves_offer_idx" ON "app"."offer_moves" USING btree ("offer_id","created_at");--> statement-breakpoint
CREATE INDEX "offers_listing_idx" ON "app"."offers" USING btree ("listing_id","created_at","id");--> statement-breakpoint
CREATE INDEX "offers_buyer_idx" ON "app"."offers" USING btree ("buyer_agent_id","created_at","id");--> statement-breakpoint
CREATE INDEX "offers_seller_idx" ON "app"."offers" USING btree ("seller_agent_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "offers_live_per_buyer_key" ON "app"."offers" USING btree ("listing_id","buyer_agent_id") WHERE "app"."offers"."status" IN ('OPEN', 'COUNTERED', 'ACCEPTED');--> statement-breakpoint
CREATE INDEX "offers_live_expiry_idx" ON "app"."offers" USING btree ("expires_at") WHERE "app"."offers"."expires_at" IS NOT NULL;;--> statement-breakpoint
ALTER TABLE "app"."offers" ADD CONSTRAINT "offers_status_check"
  CHECK ("status" IN ('OPEN', 'COUNTERED', 'ACCEPTED', 'PURCHASED', 'DECLINED', 'WITHDRAWN', 'EXPIRED'));