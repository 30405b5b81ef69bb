CREATE TABLE "app"."listing_words" (
	"word" text COLLATE "C" NOT NULL,
	"listing_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"category" text NOT NULL,
	"listing_type" text NOT NULL,
	"price_wei" numeric(78, 0) NOT NULL,
	"times_purchased" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
-- Every listing browse can show, word by word (before the indexes: one bulk build each).
INSERT INTO "app"."listing_words" ("word", "listing_id", "agent_id", "category", "listing_type", "price_wei", "times_purchased", "created_at")
SELECT w."word", l."id", l."agent_id", l."category", l."listing_type", l."price_wei", l."times_purchased", l."created_at"
FROM "app"."listings" AS l CROSS JOIN LATERAL unnest(tsvector_to_array(l."search")) AS w("word")
WHERE l."is_active" AND l."seller_listed";--> statement-breakpoint
CREATE INDEX "listing_words_created_idx" ON "app"."listing_words" USING btree ("word","created_at","listing_id","category","listing_type","price_wei","agent_id");--> statement-breakpoint
CREATE INDEX "listing_words_price_idx" ON "app"."listing_words" USING btree ("word","price_wei","listing_id","category","listing_type","agent_id");--> statement-breakpoint
CREATE INDEX "listing_words_popular_idx" ON "app"."listing_words" USING btree ("word","times_purchased","listing_id","category","listing_type","price_wei","agent_id");--> statement-breakpoint
CREATE INDEX "listing_words_listing_idx" ON "app"."listing_words" USING btree ("listing_id");--> statement-breakpoint
-- The words follow their listing in the same transaction: removed when it is deleted or changes in
-- a way browse sees (its words, whether it is shown, its filters or sort keys), written again while
-- it is shown.
CREATE FUNCTION "app"."listing_words_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM "app"."listing_words" WHERE "listing_id" = OLD."id";
  END IF;
  IF TG_OP <> 'DELETE' AND NEW."is_active" AND NEW."seller_listed" THEN
    INSERT INTO "app"."listing_words" ("word", "listing_id", "agent_id", "category", "listing_type", "price_wei", "times_purchased", "created_at")
    SELECT w."word", NEW."id", NEW."agent_id", NEW."category", NEW."listing_type", NEW."price_wei", NEW."times_purchased", NEW."created_at"
    FROM unnest(tsvector_to_array(NEW."search")) AS w("word");
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "listings_words_insert_delete" AFTER INSERT OR DELETE ON "app"."listings"
FOR EACH ROW EXECUTE FUNCTION "app"."listing_words_follow"();--> statement-breakpoint
CREATE TRIGGER "listings_words_update" AFTER UPDATE ON "app"."listings"
FOR EACH ROW WHEN (
  (OLD."search", OLD."is_active", OLD."seller_listed", OLD."agent_id", OLD."category", OLD."listing_type", OLD."price_wei", OLD."times_purchased", OLD."created_at")
  IS DISTINCT FROM
  (NEW."search", NEW."is_active", NEW."seller_listed", NEW."agent_id", NEW."category", NEW."listing_type", NEW."price_wei", NEW."times_purchased", NEW."created_at")
) EXECUTE FUNCTION "app"."listing_words_follow"();
