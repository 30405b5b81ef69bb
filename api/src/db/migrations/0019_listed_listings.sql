DROP INDEX "app"."listings_active_created_idx";--> statement-breakpoint
DROP INDEX "app"."listings_active_price_idx";--> statement-breakpoint
DROP INDEX "app"."listings_active_popular_idx";--> statement-breakpoint
ALTER TABLE "app"."listings" ADD COLUMN "seller_listed" boolean DEFAULT true NOT NULL;--> statement-breakpoint
CREATE INDEX "listings_listed_created_idx" ON "app"."listings" USING btree ("created_at","id") WHERE "app"."listings"."is_active" AND "app"."listings"."seller_listed";--> statement-breakpoint
CREATE INDEX "listings_listed_price_idx" ON "app"."listings" USING btree ("price_wei","id") WHERE "app"."listings"."is_active" AND "app"."listings"."seller_listed";--> statement-breakpoint
CREATE INDEX "listings_listed_popular_idx" ON "app"."listings" USING btree ("times_purchased","id") WHERE "app"."listings"."is_active" AND "app"."listings"."seller_listed";--> statement-breakpoint
UPDATE "app"."listings" AS l SET "seller_listed" = false FROM "app"."agents" AS a
WHERE a."id" = l."agent_id" AND NOT (a."is_active" AND NOT a."is_paused");--> statement-breakpoint
-- seller_listed follows the agent: set from it when a listing is written, and on all of an agent's
-- listings when the agent is paused, resumed, deactivated or reactivated.
CREATE FUNCTION "app"."listing_seller_listed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT a."is_active" AND NOT a."is_paused" INTO NEW."seller_listed" FROM "app"."agents" AS a WHERE a."id" = NEW."agent_id";
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "listings_seller_listed" BEFORE INSERT OR UPDATE OF "agent_id", "seller_listed" ON "app"."listings"
FOR EACH ROW EXECUTE FUNCTION "app"."listing_seller_listed"();--> statement-breakpoint
CREATE FUNCTION "app"."agent_listings_listed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "app"."listings" SET "seller_listed" = NEW."is_active" AND NOT NEW."is_paused"
  WHERE "agent_id" = NEW."id" AND "seller_listed" IS DISTINCT FROM (NEW."is_active" AND NOT NEW."is_paused");
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "agents_listings_listed" AFTER UPDATE OF "is_active", "is_paused" ON "app"."agents"
FOR EACH ROW WHEN (OLD."is_active" IS DISTINCT FROM NEW."is_active" OR OLD."is_paused" IS DISTINCT FROM NEW."is_paused")
EXECUTE FUNCTION "app"."agent_listings_listed"();
