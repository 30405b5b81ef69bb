import { and, desc, eq, ne, or, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Database, DbTransaction } from "../../db/client.ts";
import { agents, listings, proposals, transactions } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { type NewNotification, type NotificationKind, notify } from "../../notifications/notify.ts";
import type { Agent, AgentRef } from "../agents/agent-summary.ts";
import { bountyAssignment, type ClaimedBounty } from "../listings/bounty-assignment.ts";
import type { ApiPaths } from "../shared/api-paths.ts";
import { keysetPage, olderThanCursor, timestampPosition } from "../shared/cursor.ts";
import { ConflictError, forbidden, notFound } from "../shared/errors.ts";
import { isUuid } from "../shared/ids.ts";
import { formatUsdc } from "../shared/money.ts";
import type { ProposalStatus } from "./proposal-status.ts";

/*
 * Proposals on bounties that take them (API.md, "Negotiation"): agents pitch, the poster accepts
 * one, and that agent becomes the bounty's seller on chain through the same path as a claim
 * (bounty-assignment.ts). The proposal's acceptance and the others' decline are written with the
 * outbox record of the assignment: of two acceptances at once, one is sent, the other refused
 * (409) with nothing changed. An agent may withdraw its pending proposal; the poster may decline
 * one; a bounty refunded at its expiry declines what was still pending.
 */

type ProposalRow = typeof proposals.$inferSelect;
type Writer = Pick<Database, "insert" | "select" | "update" | "execute">;

/** Who an agent is to a proposal. */
export type ProposalRole = "proposer" | "poster";

export interface ProposalView {
  id: string;
  listing_id: string;
  listing_title: string;
  reward_wei: string;
  reward_usdc: string;
  /** The agent that would do the work. */
  agent: AgentRef;
  poster: AgentRef;
  pitch: string;
  eta_hours: number | null;
  /** The price the agent asked (USDC wei), or null: the reward stands. */
  proposed_price_wei: string | null;
  proposed_price_usdc: string | null;
  status: ProposalStatus;
  /** The bounty's escrow (its transaction). */
  transaction_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface MakeProposalInput {
  listingId: string;
  pitch: string;
  etaHours?: number;
  /** The price the agent asks, in USDC wei (a bounty's reward is funded: another one is not accepted). */
  proposedPriceWei?: string;
}

export interface ProposalListInput {
  limit: number;
  cursor?: string;
}

export interface AcceptedProposal {
  proposal: ProposalView;
  claim: ClaimedBounty;
}

const proposerAgent = alias(agents, "proposal_agent");
const posterAgent = alias(agents, "proposal_poster");

function closedError(proposal: Pick<ProposalRow, "id" | "status">) {
  return new ConflictError(
    `This proposal is ${proposal.status}`,
    { proposal_id: proposal.id, status: proposal.status },
    "proposal_closed",
  );
}

/**
 * 409 when `proposal` asks another price than the bounty's reward: the reward was funded in escrow
 * when the bounty was posted, and the escrow pays exactly it.
 */
function refuseOtherPrice(proposal: Pick<ProposalRow, "id" | "proposedPriceWei">, rewardWei: string) {
  const asked = proposal.proposedPriceWei;
  if (asked === null || BigInt(asked) === BigInt(rewardWei)) return;
  throw new ConflictError(
    `This proposal asks ${formatUsdc(asked)} USDC but the bounty's reward is ${formatUsdc(rewardWei)} USDC. Bounties are pre-funded: the reward is in escrow since the bounty was posted and is paid as it is, so only a proposal at the reward can be accepted. Decline this one, or its agent withdraws it and proposes again without proposed_price_wei (or with the reward)`,
    { proposal_id: proposal.id, proposed_price_wei: asked, reward_wei: rewardWei },
    "proposal_price_differs",
  );
}

/** A notification of a proposal's change to `to`. */
function proposalNotice(
  kind: NotificationKind,
  to: string,
  proposal: ProposalRow,
  listing: { title: string; priceWei: string },
  from: AgentRef | null,
  reason?: string,
): NewNotification {
  return {
    agentId: to,
    kind,
    dedupeKey: `proposal:${proposal.id}:${proposal.status}`,
    payload: {
      proposal_id: proposal.id,
      listing_id: proposal.listingId,
      listing_title: listing.title,
      reward_wei: listing.priceWei,
      reward_usdc: formatUsdc(listing.priceWei),
      status: proposal.status,
      ...(proposal.etaHours !== null && { eta_hours: proposal.etaHours }),
      ...(proposal.proposedPriceWei !== null && {
        proposed_price_wei: proposal.proposedPriceWei,
        proposed_price_usdc: formatUsdc(proposal.proposedPriceWei),
      }),
      ...(from && { from }),
      ...(reason && { reason }),
    },
  };
}

/**
 * Declines every PENDING proposal on `listingId` (but `except`), each agent told with `reason`;
 * answers the declined rows. Runs in the caller's transaction.
 */
async function declinePending(
  tx: Writer,
  listing: { id: string; title: string; priceWei: string },
  reason: string,
  except?: string,
): Promise<ProposalRow[]> {
  const declined = await tx
    .update(proposals)
    .set({ status: "DECLINED", updatedAt: sql`now()` })
    .where(
      and(
        eq(proposals.listingId, listing.id),
        eq(proposals.status, "PENDING"),
        except ? ne(proposals.id, except) : undefined,
      ),
    )
    .returning();
  await notify(
    tx,
    declined.map((proposal) => proposalNotice("proposal.declined", proposal.agentId, proposal, listing, null, reason)),
  );
  return declined;
}

/** Declines what is still pending on a bounty that closed (its reward refunded at its expiry). */
export async function declineProposalsOfClosedBounty(db: Database, listingId: string): Promise<number> {
  return db.transaction(async (tx) => {
    const [listing] = await tx
      .select({ id: listings.id, title: listings.title, priceWei: listings.priceWei })
      .from(listings)
      .where(eq(listings.id, listingId));
    if (!listing) return 0;
    return (await declinePending(tx, listing, "The bounty closed: its reward went back to the poster")).length;
  });
}

export function proposalUseCases(
  deps: Pick<Deps, "db" | "chain" | "escrow" | "relayer" | "indexed">,
  paths: Pick<ApiPaths, "claimBounty">,
) {
  const { db } = deps;
  const bounties = bountyAssignment(deps);

  /** Proposals with their bounty and both agents' names, newest first. */
  function selectProposals(where: SQL | undefined, limit: number, reader: Pick<Database, "select"> = db) {
    return (
      reader
        .select({
          proposal: proposals,
          listingTitle: listings.title,
          rewardWei: listings.priceWei,
          agentName: proposerAgent.name,
          posterName: posterAgent.name,
          transactionId: transactions.id,
          position: timestampPosition(proposals.createdAt),
        })
        .from(proposals)
        .innerJoin(listings, eq(listings.id, proposals.listingId))
        .innerJoin(proposerAgent, eq(proposerAgent.id, proposals.agentId))
        .innerJoin(posterAgent, eq(posterAgent.id, proposals.posterAgentId))
        // A bounty's one transaction: its reward's escrow.
        .leftJoin(transactions, eq(transactions.listingId, proposals.listingId))
        .where(where)
        .orderBy(desc(proposals.createdAt), desc(proposals.id))
        .limit(limit)
    );
  }
  type SelectedProposal = Awaited<ReturnType<typeof selectProposals>>[number];

  function viewOfRow(row: SelectedProposal): ProposalView {
    const { proposal } = row;
    return {
      id: proposal.id,
      listing_id: proposal.listingId,
      listing_title: row.listingTitle,
      reward_wei: row.rewardWei,
      reward_usdc: formatUsdc(row.rewardWei),
      agent: { id: proposal.agentId, name: row.agentName },
      poster: { id: proposal.posterAgentId, name: row.posterName },
      pitch: proposal.pitch,
      eta_hours: proposal.etaHours,
      proposed_price_wei: proposal.proposedPriceWei,
      proposed_price_usdc: proposal.proposedPriceWei === null ? null : formatUsdc(proposal.proposedPriceWei),
      status: proposal.status,
      transaction_id: row.transactionId,
      created_at: proposal.createdAt.toISOString(),
      updated_at: proposal.updatedAt.toISOString(),
    };
  }

  async function viewOf(id: string, reader: Pick<Database, "select"> = db): Promise<ProposalView> {
    const [row] = await selectProposals(eq(proposals.id, id), 1, reader);
    if (!row) throw notFound("Proposal");
    return viewOfRow(row);
  }

  /** A page of proposals (`limit + 1` rows read) with the cursor after it. */
  async function page(where: SQL | undefined, input: ProposalListInput) {
    const rows = await selectProposals(
      and(where, olderThanCursor(proposals.createdAt, proposals.id, input.cursor)),
      input.limit + 1,
    );
    const { page: shown, nextCursor } = keysetPage(rows, input.limit, (row) => ({
      at: row.position,
      id: row.proposal.id,
    }));
    return { proposals: shown.map(viewOfRow), nextCursor };
  }

  /** The proposal `id` locked in `tx`, with its bounty's title and reward; 404 when unknown. */
  async function lockedProposal(tx: DbTransaction, id: string) {
    const [proposal] = await tx.select().from(proposals).where(eq(proposals.id, id)).for("update");
    if (!proposal) throw notFound("Proposal");
    const [listing] = await tx
      .select({ title: listings.title, priceWei: listings.priceWei })
      .from(listings)
      .where(eq(listings.id, proposal.listingId));
    if (!listing) throw notFound("Listing");
    return { proposal, ...listing };
  }

  /**
   * Closes a PENDING proposal: its agent withdraws it, or the poster declines it; the other side is
   * told. 403 for anyone else, 409 once it is no longer PENDING.
   */
  async function close(agent: Agent, id: string, how: "withdraw" | "decline"): Promise<ProposalView> {
    if (!isUuid(id)) throw notFound("Proposal");
    return db.transaction(async (tx) => {
      const { proposal, title, priceWei } = await lockedProposal(tx, id);
      const allowed = how === "withdraw" ? proposal.agentId : proposal.posterAgentId;
      if (agent.id !== allowed) {
        if (agent.id !== proposal.agentId && agent.id !== proposal.posterAgentId) {
          throw forbidden("This proposal is between other agents");
        }
        throw forbidden(
          how === "withdraw"
            ? "Only the agent that made a proposal withdraws it"
            : "Only the poster declines a proposal",
        );
      }
      if (proposal.status !== "PENDING") throw closedError(proposal);
      const [closed] = await tx
        .update(proposals)
        .set({ status: how === "withdraw" ? "WITHDRAWN" : "DECLINED", updatedAt: sql`now()` })
        .where(eq(proposals.id, proposal.id))
        .returning();
      if (!closed) throw notFound("Proposal");
      const [kind, to] =
        how === "withdraw"
          ? (["proposal.withdrawn", proposal.posterAgentId] as const)
          : (["proposal.declined", proposal.agentId] as const);
      await notify(tx, [proposalNotice(kind, to, closed, { title, priceWei }, { id: agent.id, name: agent.name })]);
      return viewOf(proposal.id, tx);
    });
  }

  return {
    /**
     * `agent`'s proposal to do the bounty `listingId`: PENDING, its poster told. 400 for a FIXED
     * listing or one's own bounty; 409 for a bounty that takes claims, is not open, or already has
     * the agent's pending proposal.
     */
    async make(agent: Agent, input: MakeProposalInput): Promise<ProposalView> {
      const { listing } = await bounties.openBounty(input.listingId, agent.id, "proposals");
      if (!listing.acceptsProposals) {
        throw new ConflictError(
          `This bounty takes claims, not proposals: POST ${paths.claimBounty("{id}")}`,
          { listing_id: listing.id },
          "bounty_takes_claims",
        );
      }
      return db.transaction(async (tx) => {
        const [proposal] = await tx
          .insert(proposals)
          .values({
            listingId: listing.id,
            agentId: agent.id,
            posterAgentId: listing.agentId,
            pitch: input.pitch,
            etaHours: input.etaHours ?? null,
            proposedPriceWei: input.proposedPriceWei ?? null,
            status: "PENDING",
          })
          .onConflictDoNothing()
          .returning();
        if (!proposal) {
          throw new ConflictError(
            "You already have a pending proposal on this bounty: withdraw it to send another",
            { listing_id: listing.id },
            "proposal_exists",
          );
        }
        await notify(tx, [
          proposalNotice("proposal.received", listing.agentId, proposal, listing, { id: agent.id, name: agent.name }),
        ]);
        return viewOf(proposal.id, tx);
      });
    },

    /**
     * The poster accepts the proposal `id`: its agent is assigned the bounty on chain (as a claim
     * would be), the proposal is ACCEPTED and every other pending one DECLINED, each agent told.
     * 403 for anyone but the poster; 409 for a proposal no longer PENDING, a bounty not open, or a
     * proposal asking another price than the reward (`proposal_price_differs`, nothing changed).
     */
    async accept(poster: Agent, id: string): Promise<AcceptedProposal> {
      if (!isUuid(id)) throw notFound("Proposal");
      const [found] = await db
        .select({ proposal: proposals, agent: agents })
        .from(proposals)
        .innerJoin(agents, eq(agents.id, proposals.agentId))
        .where(eq(proposals.id, id));
      if (!found) throw notFound("Proposal");
      const { proposal, agent } = found;
      if (proposal.posterAgentId !== poster.id) {
        throw forbidden(
          proposal.agentId === poster.id
            ? "Only the bounty's poster accepts a proposal"
            : "This proposal is between other agents",
        );
      }
      if (proposal.status !== "PENDING") throw closedError(proposal);
      const bounty = await bounties.openBounty(proposal.listingId, proposal.agentId, "proposals");
      refuseOtherPrice(proposal, bounty.listing.priceWei);
      const listing = { id: bounty.listing.id, title: bounty.listing.title, priceWei: bounty.listing.priceWei };
      const claim = await bounties.assign(bounty, agent, async (tx) => {
        const [accepted] = await tx
          .update(proposals)
          .set({ status: "ACCEPTED", updatedAt: sql`now()` })
          .where(and(eq(proposals.id, proposal.id), eq(proposals.status, "PENDING")))
          .returning();
        if (!accepted) throw closedError({ id: proposal.id, status: "DECLINED" });
        await notify(tx, [
          proposalNotice("proposal.accepted", accepted.agentId, accepted, listing, {
            id: poster.id,
            name: poster.name,
          }),
        ]);
        await declinePending(tx, listing, "The poster accepted another proposal", proposal.id);
      });
      return { proposal: await viewOf(proposal.id), claim };
    },

    withdraw: (agent: Agent, id: string) => close(agent, id, "withdraw"),
    decline: (agent: Agent, id: string) => close(agent, id, "decline"),

    /** One proposal, for its agent or the bounty's poster (403 for anyone else). */
    async get(agent: Agent, id: string): Promise<ProposalView> {
      if (!isUuid(id)) throw notFound("Proposal");
      const view = await viewOf(id);
      if (view.agent.id !== agent.id && view.poster.id !== agent.id) {
        throw forbidden("This proposal is between other agents");
      }
      return view;
    },

    /** The proposals on a bounty: all of them for its poster, the caller's own for anyone else. */
    async forListing(agent: Agent, listingId: string, input: ProposalListInput) {
      if (!isUuid(listingId)) throw notFound("Listing");
      const [listing] = await db.select({ agentId: listings.agentId }).from(listings).where(eq(listings.id, listingId));
      if (!listing) throw notFound("Listing");
      const whose = listing.agentId === agent.id ? undefined : eq(proposals.agentId, agent.id);
      return page(and(eq(proposals.listingId, listingId), whose), input);
    },

    /** The caller's proposals, made (`proposer`) or received on its bounties (`poster`); both without `role`. */
    async mine(agent: Agent, filter: ProposalListInput & { role?: ProposalRole; status?: ProposalStatus }) {
      const made = eq(proposals.agentId, agent.id);
      const received = eq(proposals.posterAgentId, agent.id);
      const whose = filter.role === "proposer" ? made : filter.role === "poster" ? received : or(made, received);
      return page(and(whose, filter.status ? eq(proposals.status, filter.status) : undefined), filter);
    },
  };
}

export type ProposalUseCases = ReturnType<typeof proposalUseCases>;
