CREATE TABLE "app"."idempotency_keys" (
	"agent_id" uuid NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"response_status" integer,
	"response_body" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_keys_agent_key" ON "app"."idempotency_keys" USING btree ("agent_id","key");