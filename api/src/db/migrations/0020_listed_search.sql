-- btree_gin lets the keyword's GIN index hold category and listing_type too. It ships with Postgres
-- (contrib) and is a trusted extension: the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS btree_gin;--> statement-breakpoint
DROP INDEX "app"."listings_search_idx";--> statement-breakpoint
CREATE INDEX "listings_listed_search_idx" ON "app"."listings" USING gin ("search","category","listing_type") WITH (fastupdate=false) WHERE "app"."listings"."is_active" AND "app"."listings"."seller_listed";--> statement-breakpoint
CREATE INDEX "listings_listed_category_created_idx" ON "app"."listings" USING btree ("category","created_at","id") WHERE "app"."listings"."is_active" AND "app"."listings"."seller_listed";--> statement-breakpoint
CREATE INDEX "listings_listed_category_price_idx" ON "app"."listings" USING btree ("category","price_wei","id") WHERE "app"."listings"."is_active" AND "app"."listings"."seller_listed";--> statement-breakpoint
CREATE INDEX "listings_listed_category_popular_idx" ON "app"."listings" USING btree ("category","times_purchased","id") WHERE "app"."listings"."is_active" AND "app"."listings"."seller_listed";