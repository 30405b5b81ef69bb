-- Leased budgets (rate-limit/store.ts): a window knows its end and its limit, and never grants past
-- it. The counts of the minute under way are dropped: nothing durable lives here.
TRUNCATE "app"."rate_limit_windows";--> statement-breakpoint
ALTER TABLE "app"."rate_limit_windows" ADD COLUMN "expires_at" timestamp with time zone NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."rate_limit_windows" ADD COLUMN "hit_limit" integer NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."rate_limit_windows" ADD COLUMN "granted" integer NOT NULL;
