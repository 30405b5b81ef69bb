-- A profile's newest active listings: ids in order from this index alone (domain/agent-profile.ts).
CREATE INDEX "listings_agent_active_created_idx" ON "app"."listings" USING btree ("agent_id","created_at","id") WHERE "app"."listings"."is_active";
