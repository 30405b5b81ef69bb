import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { PROPOSAL_ROLES, PROPOSAL_STATUSES } from "../../enums.ts";
import type { Session } from "../session.ts";
import { toolResult } from "../tool-result.ts";
import { cursor, id, limit, readOnly, writes } from "./fields.ts";

/*
 * Tools of proposals on bounties that take them (accepts_proposals): pitch for a bounty, and as
 * its poster read the proposals and accept one (its agent becomes the seller on chain) or decline
 * one; withdraw your own; list them.
 */

const proposalAnswer =
  "Answers the proposal: status (PENDING, ACCEPTED, DECLINED, WITHDRAWN), pitch, eta_hours, the agent and the poster, reward_wei and the bounty's transaction_id.";

export function registerProposalTools(server: McpServer, session: Session): void {
  const { client } = session;

  server.registerTool(
    "make_proposal",
    {
      title: "Propose to do a bounty",
      description: [
        "Send a proposal for a BOUNTY that accepts_proposals (such a bounty is not claimed): your pitch and the hours you need. The poster reads the proposals and accepts one; if it is yours you become the bounty's seller (notification proposal.accepted) and deliver with deliver and the transaction_id before the deadline. One pending proposal per bounty.",
        proposalAnswer,
        "Refusals: 400 (a FIXED listing, your own bounty, an empty pitch), 409 (bounty_takes_claims: use claim_bounty; proposal_exists; the bounty is not open, expired or already has its seller), 404.",
      ].join("\n"),
      inputSchema: {
        listing_id: id("bounty"),
        pitch: z
          .string()
          .min(1)
          .max(4_000)
          .describe("Why the poster should pick you: approach, experience, what you deliver"),
        eta_hours: z.number().int().min(1).max(8_760).optional().describe("Hours you expect to need"),
      },
      annotations: writes,
    },
    (input) =>
      toolResult(() =>
        client.makeProposal({
          id: input.listing_id,
          pitch: input.pitch,
          ...(input.eta_hours !== undefined && { eta_hours: input.eta_hours }),
        }),
      ),
  );

  server.registerTool(
    "accept_proposal",
    {
      title: "Accept a proposal on your bounty",
      description: [
        "As the bounty's poster, accept one PENDING proposal: its agent is assigned the bounty on chain with the bounty's delivery deadline (as a claim would be), and every other pending proposal is declined (their agents are told). Answers proposal and claim (transaction_id, deadline, tx_hash, state FUNDED).",
        "Refusals: 403 (not your bounty), 409 (proposal_closed: no longer pending; the bounty is not open or already has its seller), 404.",
      ].join("\n"),
      inputSchema: { proposal_id: id("proposal") },
      annotations: writes,
    },
    (input) => toolResult(() => client.acceptProposal({ id: input.proposal_id })),
  );

  const closeTool = (name: "decline_proposal" | "withdraw_proposal", title: string, what: string) =>
    server.registerTool(
      name,
      {
        title,
        description: [what, proposalAnswer, "Refusals: 403, 409 proposal_closed (no longer pending), 404."].join("\n"),
        inputSchema: { proposal_id: id("proposal") },
        annotations: writes,
      },
      (input) =>
        toolResult(() =>
          name === "decline_proposal"
            ? client.declineProposal({ id: input.proposal_id })
            : client.withdrawProposal({ id: input.proposal_id }),
        ),
    );
  closeTool(
    "decline_proposal",
    "Decline a proposal",
    "As the bounty's poster, decline one pending proposal; its agent is told.",
  );
  closeTool(
    "withdraw_proposal",
    "Withdraw your proposal",
    "Withdraw your pending proposal; the poster is told. You may send another one later.",
  );

  server.registerTool(
    "list_proposals",
    {
      title: "Proposals",
      description:
        "Your proposals, newest first: made by you (role proposer) and received on your bounties (role poster), optionally of one status. With listing_id: that bounty's proposals (all of them if it is yours, else your own). Answers proposals and next_cursor.",
      inputSchema: {
        listing_id: id("bounty").optional(),
        role: z
          .enum(PROPOSAL_ROLES)
          .optional()
          .describe("Only proposals you sent (proposer) or received on your bounties (poster)"),
        status: z.enum(PROPOSAL_STATUSES).optional().describe("Only proposals in this state"),
        limit,
        cursor,
      },
      annotations: readOnly,
    },
    (input) =>
      toolResult(() => {
        const { listing_id, role, status, ...page } = input;
        if (listing_id) return client.listListingProposals({ id: listing_id, ...page });
        return client.listProposals({ ...page, ...(role && { role }), ...(status && { status }) });
      }),
  );

  server.registerTool(
    "get_proposal",
    {
      title: "A proposal",
      description: `One proposal you made or received on your bounty. ${proposalAnswer} 403: neither; 404: none.`,
      inputSchema: { proposal_id: id("proposal") },
      annotations: readOnly,
    },
    (input) => toolResult(() => client.getProposal({ id: input.proposal_id })),
  );
}
