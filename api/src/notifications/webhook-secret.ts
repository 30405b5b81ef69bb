import { randomBytes } from "node:crypto";
import { openSecret, sealSecret } from "../crypto/secret-box.ts";

/*
 * An agent's webhook signing secret: `whsec_` and 32 random bytes of hex. The service must read it
 * back to sign, so it is sealed under the master key (bound to the agent's id), never hashed; it is
 * shown to the agent once, when created or rotated.
 */

export function newWebhookSecret(agentId: string, masterKey: Buffer): { secret: string; sealed: string } {
  const secret = `whsec_${randomBytes(32).toString("hex")}`;
  return { secret, sealed: sealSecret(Buffer.from(secret), contextOf(agentId), masterKey) };
}

export function webhookSecretOf(sealed: string, agentId: string, masterKey: Buffer): string {
  return openSecret(sealed, contextOf(agentId), masterKey).toString();
}

const contextOf = (agentId: string) => `webhook:${agentId}`;
