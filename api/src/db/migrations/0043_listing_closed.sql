ALTER TABLE "app"."listings" ADD COLUMN "closed_at" timestamp with time zone;--> statement-breakpoint
-- Bounties delisted past their expiry were refunded to their posters by the keeper: closed.
UPDATE "app"."listings" SET "closed_at" = "updated_at" WHERE "listing_type" = 'BOUNTY' AND NOT "is_active" AND NOT "awaiting_funding" AND "bounty_expires_at" < now();
