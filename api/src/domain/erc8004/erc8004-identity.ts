import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import { chainErc8004Agent, chainErc8004Feedback } from "../../db/chain-views.ts";
import type { Database } from "../../db/client.ts";
import { agents } from "../../db/schema.ts";
import { FEEDBACK_TAG1 } from "./erc8004-files.ts";

/*
 * An agent's ERC-8004 identity: the token recorded on its row (once its registration was mined or
 * verified), or else the one the indexer saw registered by its wallet with its registration file
 * (an external agent that sent `register` and never came back). What the registry holds now (the
 * owner, the agent wallet, the feedback) is read from the indexer's views.
 */

type Agent = Pick<
  typeof agents.$inferSelect,
  "id" | "walletAddress" | "erc8004AgentId" | "erc8004TxHash" | "hosted" | "encryptedPrivateKey"
>;

export interface Identity {
  /** The token id in the identity registry. */
  agentId: bigint;
  /** The register transaction, when known. */
  txHash: string | null;
}

export interface IndexedIdentity {
  owner: Address;
  agentUri: string;
  agentWallet: Address | null;
  registeredTxHash: string;
}

export interface FeedbackSummary {
  count: number;
  /** Average value of the counted feedback, two decimals; null with none. */
  average: string | null;
}

export function erc8004Identities(db: Database, chainId: number) {
  /** The lowest token the indexer saw `wallet` register with `agentUri`. */
  async function indexedRegistration(wallet: string, agentUri: string): Promise<Identity | undefined> {
    const [row] = await db
      .select({ agentId: chainErc8004Agent.agentId, txHash: chainErc8004Agent.registeredTxHash })
      .from(chainErc8004Agent)
      .where(
        and(
          eq(chainErc8004Agent.chainId, chainId),
          eq(chainErc8004Agent.owner, wallet.toLowerCase()),
          eq(chainErc8004Agent.agentUri, agentUri),
        ),
      )
      .orderBy(asc(chainErc8004Agent.agentId))
      .limit(1);
    return row && { agentId: BigInt(row.agentId), txHash: row.txHash };
  }

  return {
    indexedRegistration,

    /** The agent's identity: recorded on its row, else found by the indexer; undefined if none. */
    async identityOf(agent: Agent, agentUri: string): Promise<Identity | undefined> {
      if (agent.erc8004AgentId !== null) return { agentId: BigInt(agent.erc8004AgentId), txHash: agent.erc8004TxHash };
      return indexedRegistration(agent.walletAddress, agentUri);
    },

    /**
     * Records the identity on the agent's row, once: a recorded one is never replaced. Answers the
     * identity the row holds afterwards (another one, if another request recorded first).
     */
    async record(agentId: string, identity: { agentId: bigint; txHash: string }): Promise<Identity> {
      const [recorded] = await db
        .update(agents)
        .set({ erc8004AgentId: identity.agentId.toString(), erc8004TxHash: identity.txHash, updatedAt: new Date() })
        .where(and(eq(agents.id, agentId), isNull(agents.erc8004AgentId)))
        .returning({ id: agents.id });
      if (recorded) return identity;
      const [row] = await db
        .select({ agentId: agents.erc8004AgentId, txHash: agents.erc8004TxHash })
        .from(agents)
        .where(eq(agents.id, agentId));
      if (!row?.agentId) throw new Error(`agent ${agentId} has no recorded ERC-8004 identity`);
      return { agentId: BigInt(row.agentId), txHash: row.txHash };
    },

    /** What the indexer holds of token `agentId` now; undefined before it has seen it. */
    async indexedIdentity(agentId: bigint): Promise<IndexedIdentity | undefined> {
      const [row] = await db
        .select()
        .from(chainErc8004Agent)
        .where(and(eq(chainErc8004Agent.chainId, chainId), eq(chainErc8004Agent.agentId, agentId.toString())));
      return (
        row && {
          owner: getAddress(row.owner),
          agentUri: row.agentUri,
          agentWallet: row.agentWallet ? getAddress(row.agentWallet) : null,
          registeredTxHash: row.registeredTxHash,
        }
      );
    },

    /**
     * The agent's "starred" feedback (ERC-8004's 0-100 quality rating, as reviews are given) that
     * is not revoked: how many, and their average value.
     */
    async feedbackSummary(agentId: bigint): Promise<FeedbackSummary> {
      const f = chainErc8004Feedback;
      const [row] = await db
        .select({
          count: sql<number>`count(*)::int`,
          average: sql<string | null>`round(avg(${f.value} / power(10::numeric, ${f.valueDecimals})), 2)::text`,
        })
        .from(f)
        .where(
          and(
            eq(f.chainId, chainId),
            eq(f.agentId, agentId.toString()),
            eq(f.tag1, FEEDBACK_TAG1),
            eq(f.revoked, false),
          ),
        );
      return { count: row?.count ?? 0, average: row?.average ?? null };
    },

    /** The feedback `client` gave token `agentId` with `feedbackUri`, as the indexer saw it. */
    async indexedFeedback(
      agentId: bigint,
      client: string,
      feedbackUri: string,
    ): Promise<{ feedbackIndex: number; txHash: string } | undefined> {
      const f = chainErc8004Feedback;
      const [row] = await db
        .select({ feedbackIndex: f.feedbackIndex, txHash: f.txHash })
        .from(f)
        .where(
          and(
            eq(f.chainId, chainId),
            eq(f.agentId, agentId.toString()),
            eq(f.client, client.toLowerCase()),
            eq(f.feedbackUri, feedbackUri),
          ),
        )
        .orderBy(asc(f.feedbackIndex))
        .limit(1);
      return row && { feedbackIndex: Number(row.feedbackIndex), txHash: row.txHash };
    },
  };
}

export type Erc8004Identities = ReturnType<typeof erc8004Identities>;
