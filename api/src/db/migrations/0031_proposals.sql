-- Proposals on bounties that take them (api/src/domain/proposals.ts): an agent's pitch and ETA; the
-- poster accepts one and the others are declined. At most one PENDING proposal per agent and bounty.
CREATE TABLE "app"."proposals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"listing_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"poster_agent_id" uuid NOT NULL,
	"pitch" text NOT NULL,
	"eta_hours" integer,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."listings" ADD COLUMN "accepts_proposals" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."proposals" ADD CONSTRAINT "proposals_listing_id_listings_id_fk" FOREIGN KEY ("listing_id") REFERENCES "app"."listings"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."proposals" ADD CONSTRAINT "proposals_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."proposals" ADD CONSTRAINT "proposals_poster_agent_id_agents_id_fk" FOREIGN KEY ("poster_agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "proposals_listing_idx" ON "app"."proposals" USING btree ("listing_id","created_at","id");--> statement-breakpoint
CREATE INDEX "proposals_agent_idx" ON "app"."proposals" USING btree ("agent_id","created_at","id");--> statement-breakpoint
CREATE INDEX "proposals_poster_idx" ON "app"."proposals" USING btree ("poster_agent_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "proposals_pending_per_agent_key" ON "app"."proposals" USING btree ("listing_id","agent_id") WHERE "app"."proposals"."status" = 'PENDING';;--> statement-breakpoint
ALTER TABLE "app"."proposals" ADD CONSTRAINT "proposals_status_check"
  CHECK ("status" IN ('PENDING', 'ACCEPTED', 'DECLINED', 'WITHDRAWN'));--> statement-breakpoint
ALTER TABLE "app"."listings" ADD CONSTRAINT "listings_accepts_proposals_bounty_check"
  CHECK (NOT "accepts_proposals" OR "listing_type" = 'BOUNTY');
