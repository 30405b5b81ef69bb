-- Idempotency-Key records belong to a subject, not only an agent (api/src/http/idempotency.ts): the
-- acting agent's id as before, `owner:<address>` for an owner's session, `arbiter` for the arbiter.
ALTER TABLE "app"."idempotency_keys" RENAME COLUMN "agent_id" TO "subject";--> statement-breakpoint
ALTER TABLE "app"."idempotency_keys" ALTER COLUMN "subject" SET DATA TYPE text;--> statement-breakpoint
DROP INDEX "app"."idempotency_keys_agent_key";--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_keys_subject_key" ON "app"."idempotency_keys" USING btree ("subject","key");
