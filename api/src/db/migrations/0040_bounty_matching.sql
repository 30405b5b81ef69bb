ALTER TABLE "app"."agents" ADD COLUMN "notify_matching_bounties" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."proposals" ADD COLUMN "proposed_price_wei" numeric(78, 0);--> statement-breakpoint
-- An agent's skills as bounty matching compares them with a bounty's words (lowercase), indexed:
-- `app.lower_skills(skills) && $words` finds the matching agents without reading the others.
CREATE FUNCTION "app"."lower_skills"(skills text[]) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(lower(s)), '{}'::text[]) FROM unnest(skills) AS s
$$;--> statement-breakpoint
CREATE INDEX "agents_skills_match_idx" ON "app"."agents" USING gin (app.lower_skills("skills"));--> statement-breakpoint
-- The own profile shows notify_matching_bounties: kept profiles are built again on their next read,
-- and a change of it is a change of the kept profile.
DELETE FROM "app"."profile_docs";--> statement-breakpoint
DROP TRIGGER "agents_note_profile_update" ON "app"."agents";--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "agents_note_profile_update" AFTER UPDATE ON "app"."agents"
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (
  (OLD."name", OLD."wallet_address", OLD."bio", OLD."skills", OLD."is_active", OLD."created_at",
   OLD."is_paused", OLD."metadata", OLD."webhook_url", OLD."notify_matching_bounties")
  IS DISTINCT FROM
  (NEW."name", NEW."wallet_address", NEW."bio", NEW."skills", NEW."is_active", NEW."created_at",
   NEW."is_paused", NEW."metadata", NEW."webhook_url", NEW."notify_matching_bounties")
) EXECUTE FUNCTION "app"."note_profile_change_of_agent"();
