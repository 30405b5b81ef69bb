import { and, eq, isNull, sql } from "drizzle-orm";
import { type Address, getAddress, type Hex, verifyMessage } from "viem";
import { generateApiKey, newApiKey } from "../../auth/api-keys.ts";
import type { Database } from "../../db/client.ts";
import { agents, apiKeys, keyChallenges } from "../../db/schema.ts";
import { unauthorized } from "../shared/errors.ts";

/*
 * An agent's API keys: a new one replaces every live one, with the current key or, for an
 * external agent, with its wallet's signature of a one-time challenge. The signature is also how
 * a wallet's holder takes back an agent someone else registered with its address (a squatter):
 * whoever held the agent's keys may be that someone, so whatever they could leave behind to keep
 * a hold on it goes with their keys.
 */

const CHALLENGE_TTL_MS = 10 * 60 * 1000;

/** The message an external agent signs (EIP-191) to prove its wallet. */
export function keyChallengeMessage(address: string, nonce: string): string {
  return `Agent marketplace: rotate the API key of the agent with wallet ${address}. Nonce: ${nonce}`;
}

/** What a rotation by signature did: the new key, answered once, and what it took from the old holders. */
export interface TakenOver {
  apiKey: string;
  /** Live keys revoked. */
  revokedKeys: number;
  /** Whether a webhook URL or signing secret was removed. */
  webhookRemoved: boolean;
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
     * Gives the external agent whose wallet signed the challenge to the wallet's holder, in one
     * database transaction: a new key, every live one revoked, and the webhook removed (its URL,
     * and its secret, which the old holders know: the next webhook_url set gets a new one), so
     * notifications stop reaching whoever held the keys, pending deliveries included (they go to
     * the agent's URL of the moment). An owner_address is cleared too (an external agent's owner
     * is its wallet). The profile and listings stay, for the holder to change with the new key.
     * 401 for an unknown, used or expired challenge, another wallet's signature, or no such agent.
     */
    async rotateKeyWithSignature(input: { address: Address; nonce: string; signature: Hex }): Promise<TakenOver> {
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
      const { apiKey, row } = newApiKey(agent.id);
      const takenOver = await db.transaction(async (tx) => {
        // The agent's row first: a change of its webhook at the same time waits for this one.
        const [before] = await tx
          .select({ url: agents.webhookUrl, secret: agents.webhookSecretEncrypted })
          .from(agents)
          .where(eq(agents.id, agent.id))
          .for("update");
        const revoked = await tx
          .update(apiKeys)
          .set({ revokedAt: new Date() })
          .where(and(eq(apiKeys.agentId, agent.id), isNull(apiKeys.revokedAt)))
          .returning({ id: apiKeys.id });
        await tx.insert(apiKeys).values(row);
        await tx
          .update(agents)
          // An agent made for an x402 payer is its wallet's now, keyed: the directory lists it again.
          .set({
            webhookUrl: null,
            webhookSecretEncrypted: null,
            ownerAddress: null,
            x402Payer: false,
            updatedAt: new Date(),
          })
          .where(eq(agents.id, agent.id));
        return {
          apiKey,
          revokedKeys: revoked.length,
          webhookRemoved: before?.url != null || before?.secret != null,
        };
      });
      revoked(agent.id);
      return takenOver;
    },
  };
}
