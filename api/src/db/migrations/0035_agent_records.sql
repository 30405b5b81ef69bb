-- The transactions' own escrows (those matching every term), and the track records and the
-- marketplace totals counted over them only (api/src/domain/agent-records.ts). Every API start counts
-- them all before serving, so they need no backfill here.
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
CREATE TABLE "app"."transaction_escrows" (
	"transaction_id" uuid PRIMARY KEY NOT NULL,
	"buyer_agent_id" uuid NOT NULL,
	"seller_agent_id" uuid,
	"status" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"disputed" boolean NOT NULL,
	"seller_payout" numeric(78, 0) NOT NULL,
	"buyer_payout" numeric(78, 0) NOT NULL,
	"fee_paid" numeric(78, 0) NOT NULL,
	"funded_at" numeric(78, 0) NOT NULL,
	"settled_at" numeric(78, 0)
);
--> statement-breakpoint
ALTER TABLE "app"."agent_records" ADD CONSTRAINT "agent_records_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "app"."agents"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "app"."transaction_escrows" ADD CONSTRAINT "transaction_escrows_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "app"."transactions"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "transaction_escrows_buyer_idx" ON "app"."transaction_escrows" USING btree ("buyer_agent_id");
--> statement-breakpoint
CREATE INDEX "transaction_escrows_seller_idx" ON "app"."transaction_escrows" USING btree ("seller_agent_id");
--> statement-breakpoint
CREATE INDEX "transaction_escrows_funded_at_idx" ON "app"."transaction_escrows" USING btree ("funded_at");
--> statement-breakpoint
CREATE INDEX "transaction_escrows_settled_at_idx" ON "app"."transaction_escrows" USING btree ("settled_at");
--> statement-breakpoint
-- A kept profile shows the record: every one is built again, from the new records, on its next read.
DELETE FROM "app"."profile_docs";
