-- Escrow ids are now derived from the buyer (escrowIdOf(buyer, ref)): a kept profile's recent
-- transactions carry the old escrow_id_bytes32, so every kept profile is built again on its next read.
DELETE FROM "app"."profile_docs";
