-- Kept own profiles (api/src/domain/kept-profiles.ts): next to each kept public profile, the fields
-- an agent's own profile adds (GET /api/agents/me), kept and checked with it. The kept profiles are
-- built again on their next read, with them.
DELETE FROM "app"."profile_docs";--> statement-breakpoint
ALTER TABLE "app"."profile_docs" ADD COLUMN "own_fields" text NOT NULL;--> statement-breakpoint
-- An agent's change is a change of its kept profile also when only its own fields show it: paused,
-- its metadata, its webhook URL (`hosted` never changes).
DROP TRIGGER "agents_note_profile_update" ON "app"."agents";--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "agents_note_profile_update" AFTER UPDATE ON "app"."agents"
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (
  (OLD."name", OLD."wallet_address", OLD."bio", OLD."skills", OLD."is_active", OLD."created_at",
   OLD."is_paused", OLD."metadata", OLD."webhook_url")
  IS DISTINCT FROM
  (NEW."name", NEW."wallet_address", NEW."bio", NEW."skills", NEW."is_active", NEW."created_at",
   NEW."is_paused", NEW."metadata", NEW."webhook_url")
) EXECUTE FUNCTION "app"."note_profile_change_of_agent"();
