CREATE TABLE "app"."accepted_tx_hashes" (
	"tx_hash" text PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"purpose" text NOT NULL,
	"transaction_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
