-- Unlogged, as rate_limit_windows: who is alive needs no durability.
CREATE UNLOGGED TABLE "app"."rate_limit_instances" (
	"id" text PRIMARY KEY NOT NULL,
	"seen_at" timestamp with time zone NOT NULL
);
