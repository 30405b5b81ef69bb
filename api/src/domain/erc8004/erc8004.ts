import { and, desc, eq, isNull } from "drizzle-orm";
import type { Hex } from "viem";
import { agents, listings, reviews } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import type { ApiPaths } from "../shared/api-paths.ts";
import { notFound } from "../shared/errors.ts";
import { agentUrls, type RegistrationFile, registrationFile } from "./erc8004-files.ts";
import { erc8004Identities, type FeedbackSummary } from "./erc8004-identity.ts";
import { erc8004Registration } from "./erc8004-registration.ts";

/*
 * ERC-8004 ("Trustless Agents") as the API serves it: an agent's registration file (its
 * identity's agentURI), its identity and feedback as indexed, its registration, and the feedback
 * files of reviews given on chain. `base` is where clients reach the API: the files' URLs start
 * with it.
 */

type Agent = typeof agents.$inferSelect;

/** How many of an agent's listings its registration file names as x402 endpoints, at most. */
const X402_SERVICES_MAX = 20;

export interface AgentIdentity {
  agentId: string;
  registered: boolean;
  /** The token id in the identity registry, decimal; null before registration. */
  erc8004AgentId: string | null;
  registry: string;
  registrationUri: string;
  owner: string | null;
  agentWallet: string | null;
  txHash: string | null;
  feedback: FeedbackSummary;
}

export type RegisterIdentityOutcome =
  | {
      kind: "registered";
      /** False when the agent had its identity already: nothing was sent. */
      created: boolean;
      agentId: bigint;
      txHash: string | null;
      registry: string;
      registrationUri: string;
    }
  | {
      kind: "action_required";
      /** The call the external agent sends from its wallet. */
      call: { to: string; data: Hex };
      chainId: number;
      registry: string;
      registrationUri: string;
    };

export function erc8004UseCases(deps: Deps, paths: ApiPaths) {
  const { db, chain, erc8004 } = deps;
  const identities = erc8004Identities(db, chain.chainId);
  const registration = erc8004Registration(deps);

  async function activeAgent(id: string): Promise<Agent> {
    const [agent] = await db
      .select()
      .from(agents)
      .where(and(eq(agents.id, id), eq(agents.isActive, true)));
    if (!agent) throw notFound("Agent");
    return agent;
  }

  return {
    /** The registration file of an active agent; 404 otherwise. */
    async registrationFile(agentId: string, base: string): Promise<RegistrationFile> {
      const agent = await activeAgent(agentId);
      const [identity, sold] = await Promise.all([
        identities.identityOf(agent, agentUrls(base, agent.id, paths).registrationFile),
        // Each FIXED listing on the market is an x402 endpoint (domain/x402), the newest first.
        db
          .select({ id: listings.id })
          .from(listings)
          .where(
            and(
              eq(listings.agentId, agent.id),
              eq(listings.listingType, "FIXED"),
              eq(listings.isActive, true),
              isNull(listings.closedAt),
            ),
          )
          .orderBy(desc(listings.createdAt), desc(listings.id))
          .limit(X402_SERVICES_MAX),
      ]);
      return registrationFile({
        base,
        paths,
        agent: { id: agent.id, name: agent.name, bio: agent.bio, metadata: agent.metadata, active: !agent.isPaused },
        identity: identity && { agentId: identity.agentId, agentRegistry: erc8004.agentRegistry },
        x402Listings: sold.map((listing) => listing.id),
      });
    },

    /** An active agent's identity and the feedback it received, as indexed; 404 for no such agent. */
    async identity(agentId: string, base: string): Promise<AgentIdentity> {
      const agent = await activeAgent(agentId);
      const registrationUri = agentUrls(base, agent.id, paths).registrationFile;
      const identity = await identities.identityOf(agent, registrationUri);
      const [indexed, feedback] = identity
        ? await Promise.all([
            identities.indexedIdentity(identity.agentId),
            identities.feedbackSummary(identity.agentId),
          ])
        : [undefined, { count: 0, average: null }];
      return {
        agentId: agent.id,
        registered: identity !== undefined,
        erc8004AgentId: identity?.agentId.toString() ?? null,
        registry: erc8004.identityRegistry,
        registrationUri,
        owner: indexed?.owner ?? null,
        agentWallet: indexed?.agentWallet ?? null,
        txHash: identity?.txHash ?? null,
        feedback,
      };
    },

    /**
     * Registers the agent in the identity registry with its registration file (see
     * erc8004-registration.ts), or answers the identity it has. `txHash`: an external agent's
     * proof of the `register` it sent.
     */
    async register(agentId: string, base: string, txHash?: Hex): Promise<RegisterIdentityOutcome> {
      const registrationUri = agentUrls(base, agentId, paths).registrationFile;
      const registry = erc8004.identityRegistry;
      const outcome = await registration.register(agentId, registrationUri, txHash);
      if (outcome.kind === "action_required") {
        return { kind: "action_required", call: outcome.call, chainId: chain.chainId, registry, registrationUri };
      }
      const { agentId: token, txHash: sent } = outcome.identity;
      return { kind: "registered", created: outcome.created, agentId: token, txHash: sent, registry, registrationUri };
    },

    /** The stored text of a review's feedback file: its bytes are what feedbackHash commits to. */
    async feedbackFile(reviewId: string): Promise<string> {
      const [review] = await db
        .select({ file: reviews.erc8004FeedbackFile })
        .from(reviews)
        .where(eq(reviews.id, reviewId));
      if (!review?.file) throw notFound("Feedback file");
      return review.file;
    },
  };
}
