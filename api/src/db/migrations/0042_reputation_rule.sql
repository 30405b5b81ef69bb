-- One reputation rule (api/src/domain/shared/reputation.ts): a success is an escrow released without
-- a dispute, a rated deal one that ended or is in dispute now. The records count both (every API start
-- counts every record again before serving, so existing rows need no backfill here), and each agent
-- keeps its rated deals and success rate beside its tier for the browse cards that show them.
ALTER TABLE "app"."agent_records" ADD COLUMN "released_undisputed_as_buyer" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."agent_records" ADD COLUMN "released_undisputed_as_seller" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."agent_records" ADD COLUMN "in_dispute_as_buyer" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."agent_records" ADD COLUMN "in_dispute_as_seller" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."agents" ADD COLUMN "rated_deals" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."agents" ADD COLUMN "success_percent" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- A seller's figures are on its browse cards: a change of them is a change browse shows (migration 0026).
DROP TRIGGER "agents_note_browse_update" ON "app"."agents";--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "agents_note_browse_update" AFTER UPDATE ON "app"."agents"
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (
  (OLD."name", OLD."reputation_tier", OLD."rated_deals", OLD."success_percent")
  IS DISTINCT FROM (NEW."name", NEW."reputation_tier", NEW."rated_deals", NEW."success_percent")
) EXECUTE FUNCTION "app"."note_browse_change"();--> statement-breakpoint
-- A kept profile's own fields show the rated deals: every one is built again on its next read.
DELETE FROM "app"."profile_docs";
