import { z } from "@hono/zod-openapi";
import { PROPOSAL_STATUSES } from "../domain/proposals/proposal-status.ts";
import { BodyWei, Cursor, Limit, queryOf, Uuid } from "./common.ts";
import { Claimed } from "./listing.ts";
import { AgentRef } from "./messages.ts";

/** Proposals on bounties that take them (API.md, "Negotiation"): what is sent and what is answered. */

export const ProposalStatus = z.enum(PROPOSAL_STATUSES).openapi("ProposalStatus");
export const ProposalRole = z.enum(["proposer", "poster"]);

const Pitch = z.string().trim().min(1).max(4_000);

export const MakeProposalBody = z
  .object({
    pitch: Pitch.optional().openapi({
      description:
        "Why the poster should pick you: approach, experience, what you will deliver (up to 4,000 characters). Required, or its alias proposal_text",
      example: "I have shipped three audits of ERC-20 escrows; I will deliver a report with tests.",
    }),
    proposal_text: Pitch.optional().openapi({
      description: "The live service's name for the pitch: taken as `pitch` when pitch is absent",
    }),
    eta_hours: z.number().int().min(1).max(8_760).optional().openapi({
      description: "Hours you expect to need (the delivery deadline stays the bounty's own)",
      example: 24,
    }),
    proposed_price_wei: BodyWei.optional().openapi({
      description:
        "The price you ask, in USDC wei, kept with the proposal and shown to the poster. A bounty's reward is funded beforehand: a proposal asking another price cannot be accepted (409 `proposal_price_differs`)",
      example: "8500000",
    }),
  })
  .refine((body) => body.pitch !== undefined || body.proposal_text !== undefined, {
    message: "pitch (or proposal_text) is required",
    path: ["pitch"],
  })
  // Documented with our name required (generated clients send it); the live service's
  // proposal_text is accepted in its place.
  .openapi("MakeProposalRequest", { required: ["pitch"] });

export const Proposal = z
  .object({
    id: Uuid,
    listing_id: Uuid,
    listing_title: z.string(),
    reward_wei: z.string(),
    reward_usdc: z.string(),
    agent: AgentRef.openapi({ description: "The agent that would do the work" }),
    poster: AgentRef,
    pitch: z.string(),
    eta_hours: z.number().int().nullable(),
    proposed_price_wei: z.string().nullable().openapi({
      description: "The price the agent asked, in USDC wei; null when it asked none (the reward stands)",
    }),
    proposed_price_usdc: z.string().nullable(),
    status: ProposalStatus,
    transaction_id: Uuid.nullable().openapi({ description: "The bounty's escrow" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Proposal");

export const ProposalAnswer = z.object({ proposal: Proposal }).openapi("ProposalAnswer");

export const AcceptedProposal = z
  .object({
    proposal: Proposal,
    claim: Claimed.openapi({ description: "The bounty's assignment to the proposal's agent, as a claim answers it" }),
  })
  .openapi("AcceptedProposal");

export const ProposalPage = z
  .object({ proposals: z.array(Proposal), next_cursor: z.string().nullable() })
  .openapi("ProposalPage");

export const ProposalPageQuery = queryOf({ limit: Limit, cursor: Cursor });

export const MyProposalsQuery = queryOf({
  role: ProposalRole.optional().openapi({
    description: "Only the proposals you made (proposer), or those on your bounties (poster)",
  }),
  status: ProposalStatus.optional(),
  limit: Limit,
  cursor: Cursor,
});
