ALTER TABLE "app"."listings" ADD COLUMN "bounty_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "app"."listings" ADD COLUMN "awaiting_funding" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "listings_awaiting_funding_idx" ON "app"."listings" USING btree ("id") WHERE "app"."listings"."awaiting_funding";--> statement-breakpoint
-- Bounties posted before this migration: the expiry is their escrow's funding deadline while unclaimed.
UPDATE "app"."listings" l SET "bounty_expires_at" = t."deadline"
FROM "app"."transactions" t
WHERE t."listing_id" = l."id" AND l."listing_type" = 'BOUNTY' AND t."seller_agent_id" IS NULL;
