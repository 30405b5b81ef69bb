-- The tier of each agent's indexed record, kept for listing cards (api/src/domain/kept-tiers.ts):
-- every API start works it out again for all agents, so existing rows need no backfill here.
ALTER TABLE "app"."agents" ADD COLUMN "reputation_tier" text DEFAULT 'NEWCOMER' NOT NULL;
