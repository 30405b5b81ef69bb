CREATE TABLE "app"."mcp_sessions" (
	"id_hash" text PRIMARY KEY NOT NULL,
	"sealed_key" text,
	"expires_at" timestamp with time zone NOT NULL
);
