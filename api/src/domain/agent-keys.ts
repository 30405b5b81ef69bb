import { and, eq, isNull, sql } from "drizzle-orm";
import { type Address, getAddress, type Hex, verifyMessage } from "viem";
import { generateApiKey, newApiKey } from "../auth/api-keys.ts";
import type { Database } from "../db/client.ts";
import { agents, apiKeys, keyChallenges } from "../db/schema.ts";
import { unauthorized } from "./errors.ts";

/*
 * An agent's API keys: a new one replaces every live one, with the current key or, for an
 * external agent that lost it, with its wallet's signature of a one-time challenge.
 */

const CHALLENGE_TTL_MS = 10 * 60 * 1000;

/** The message an external agent signs (EIP-191) to prove its wallet. */
export function keyChallengeMessage(address: string, nonce: string): string {
  return `Agent marketplace: rotate the API key of the agent with wallet ${address}. Nonce: ${nonce}`;
}

export interface KeyChallenge {
  nonce: string;
  message: string;
  expiresAt: Date;
}

/**
 * `revoked` hears of every agent whose keys were just revoked (the request budget forgets them,
 * rate-limit/key-holders.ts).
 */
export function agentKeys(db: Database, revoked: (agentId: string) => void = () => {}) {
  /** A new key for the agent, every other live one revoked in the same database transaction. */
  async function replaceKeys(agentId: string): Promise<string> {
    const { apiKey, row } = newApiKey(agentId);
    await db.transaction(async (tx) => {
      await tx
        .update(apiKeys)
        .set({ revokedAt: new Date() })
        .where(and(eq(apiKeys.agentId, agentId), isNull(apiKeys.revokedAt)));
      await tx.insert(apiKeys).values(row);
    });
    revoked(agentId);
    return apiKey;
  }

  return {
    /** Rotates the key of the agent the current key belongs to: the new key, answered once. */
    rotateKey: replaceKeys,

    /** A nonce for `address` to sign (keyChallengeMessage), valid for ten minutes, once. */
    async keyChallenge(address: Address): Promise<KeyChallenge> {
      const nonce = generateApiKey().slice(0, 32);
      const expiresAt = new Date(Date.now() + CHALLENGE_TTL_MS);
      await db.insert(keyChallenges).values({ nonce, walletAddress: address, expiresAt });
      return { nonce, message: keyChallengeMessage(address, nonce), expiresAt };
    },

    /**
     * Rotates the key of the external agent whose wallet signed the challenge: the new key. 401
     * for an unknown, used or expired challenge, another wallet's signature, or no such agent.
     */
    async rotateKeyWithSignature(input: { address: Address; nonce: string; signature: Hex }): Promise<string> {
      const { address, nonce, signature } = input;
      // The nonce is spent whether or not the signature is good: no second try with it.
      const [challenge] = await db
        .update(keyChallenges)
        .set({ usedAt: new Date() })
        .where(and(eq(keyChallenges.nonce, nonce), isNull(keyChallenges.usedAt)))
        .returning();
      if (!challenge || challenge.expiresAt < new Date() || getAddress(challenge.walletAddress) !== address) {
        throw unauthorized("Unknown, used or expired challenge");
      }
      const valid = await verifyMessage({ address, message: keyChallengeMessage(address, nonce), signature }).catch(
        () => false,
      );
      if (!valid) throw unauthorized("The signature is not the wallet's");
      const [agent] = await db
        .select()
        .from(agents)
        .where(and(sql`lower(${agents.walletAddress}) = ${address.toLowerCase()}`, eq(agents.isActive, true)));
      if (!agent || agent.hosted) throw unauthorized("No external agent has this wallet");
      return replaceKeys(agent.id);
    },
  };
}
