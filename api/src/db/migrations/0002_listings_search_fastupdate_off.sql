DROP INDEX "app"."listings_search_idx";--> statement-breakpoint
CREATE INDEX "listings_search_idx" ON "app"."listings" USING gin ("search") WITH (fastupdate=false);