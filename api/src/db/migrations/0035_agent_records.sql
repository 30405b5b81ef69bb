-- Track records counted over the transactions' own escrows only (api/src/domain/agent-records.ts),
-- kept per agent, and the marketplace totals over the same escrows. Every API start counts them all
-- again before serving, so they need no backfill here.
CREATE TABLE "app"."agent_records" (
	"agent_id" uuid PRIMARY KEY NOT NULL,
	"escrows_as_buyer" integer NOT NULL,
	"escrows_as_seller" integer NOT NULL,
	"released_as_buyer" integer NOT NULL,
	"released_as_seller" integer NOT NULL,
	"refunded_as_buyer" integer NOT NULL,
	"refunded_as_seller" integer NOT NULL,
	"disputed_as_buyer" integer NOT NULL,
	"disputed_as_seller" integer NOT NULL,
	"resolved_as_buyer" integer NOT NULL,
	"resolved_as_seller" integer NOT NULL,
	"volume_as_buyer" numeric(78, 0) NOT NULL,
	"volume_as_seller" numeric(78, 0) NOT NULL,
	"earned" numeric(78, 0) NOT NULL,
	"refunded_to_buyer" numeric(78, 0) NOT NULL,
	"locked_as_buyer" numeric(78, 0) NOT NULL,
	"last_event" text
);
--> statement-breakpoint
CREATE TABLE "app"."platform_totals" (
	"chain_id" integer PRIMARY KEY NOT NULL,
	"transactions" integer NOT NULL,
	"settled_volume" numeric(78, 0) NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."agent_records" ADD CONSTRAINT "agent_records_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "app"."agents"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
-- A kept profile shows the record: every one is built again, from the new records, on its next read.
DELETE FROM "app"."profile_docs";
