CREATE SCHEMA "app";
--> statement-breakpoint
CREATE TABLE "app"."agents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"wallet_address" text NOT NULL,
	"hosted" boolean NOT NULL,
	"encrypted_private_key" text,
	"bio" text,
	"skills" text[] DEFAULT '{}'::text[] NOT NULL,
	"referral_source" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"is_paused" boolean DEFAULT false NOT NULL,
	"webhook_url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"key_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "app"."key_challenges" (
	"nonce" text PRIMARY KEY NOT NULL,
	"wallet_address" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "app"."listings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"category" text NOT NULL,
	"listing_type" text NOT NULL,
	"price_wei" numeric(78, 0) NOT NULL,
	"is_negotiable" boolean DEFAULT true NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"times_purchased" integer DEFAULT 0 NOT NULL,
	"rating_sum" integer DEFAULT 0 NOT NULL,
	"rating_count" integer DEFAULT 0 NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', coalesce(title, '') || ' ' || coalesce(description, ''))) STORED NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."rate_limit_windows" (
	"key" text PRIMARY KEY NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"hits" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."transactions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"listing_id" uuid,
	"buyer_agent_id" uuid NOT NULL,
	"seller_agent_id" uuid,
	"amount_wei" numeric(78, 0) NOT NULL,
	"currency" text DEFAULT 'USDC' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"deadline" timestamp with time zone NOT NULL,
	"dispute_window_seconds" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."api_keys" ADD CONSTRAINT "api_keys_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."listings" ADD CONSTRAINT "listings_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."transactions" ADD CONSTRAINT "transactions_listing_id_listings_id_fk" FOREIGN KEY ("listing_id") REFERENCES "app"."listings"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."transactions" ADD CONSTRAINT "transactions_buyer_agent_id_agents_id_fk" FOREIGN KEY ("buyer_agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."transactions" ADD CONSTRAINT "transactions_seller_agent_id_agents_id_fk" FOREIGN KEY ("seller_agent_id") REFERENCES "app"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agents_wallet_address_key" ON "app"."agents" USING btree (lower("wallet_address"));--> statement-breakpoint
CREATE INDEX "agents_created_at_idx" ON "app"."agents" USING btree ("created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "app"."api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_agent_id_idx" ON "app"."api_keys" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "listings_search_idx" ON "app"."listings" USING gin ("search");--> statement-breakpoint
CREATE INDEX "listings_active_created_idx" ON "app"."listings" USING btree ("is_active","created_at","id");--> statement-breakpoint
CREATE INDEX "listings_active_price_idx" ON "app"."listings" USING btree ("is_active","price_wei","id");--> statement-breakpoint
CREATE INDEX "listings_active_popular_idx" ON "app"."listings" USING btree ("is_active","times_purchased","id");--> statement-breakpoint
CREATE INDEX "listings_agent_id_idx" ON "app"."listings" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "transactions_buyer_idx" ON "app"."transactions" USING btree ("buyer_agent_id","created_at");--> statement-breakpoint
CREATE INDEX "transactions_seller_idx" ON "app"."transactions" USING btree ("seller_agent_id","created_at");--> statement-breakpoint
CREATE INDEX "transactions_created_idx" ON "app"."transactions" USING btree ("created_at","id");