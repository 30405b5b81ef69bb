CREATE TABLE "app"."deliverables" (
	"transaction_id" uuid NOT NULL,
	"hash" text NOT NULL,
	"content" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."deliverables" ADD CONSTRAINT "deliverables_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "app"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "deliverables_transaction_hash_key" ON "app"."deliverables" USING btree ("transaction_id","hash");