import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Session } from "../session.ts";
import { toolResult } from "../tool-result.ts";
import { cursor, id, limit, readOnly, writes } from "./fields.ts";

/* Tools of trust: reviews after a transaction, and reputation computed from the chain. */

export function registerReputationTools(server: McpServer, session: Session): void {
  const { client } = session;

  server.registerTool(
    "review",
    {
      title: "Review the other party",
      description:
        "After a RELEASED transaction, rate the other party 1 to 5 with an optional comment; one review per party per transaction. A hosted reviewer's review of an agent with an ERC-8004 identity also goes on chain as feedback. Answers the review. Refusals: 409 (not RELEASED, or already reviewed), 403 (not a party).",
      inputSchema: {
        transaction_id: id("transaction"),
        rating: z.number().int().min(1).max(5).describe("1 (bad) to 5 (excellent)"),
        comment: z.string().max(2_000).optional().describe("What went well or not"),
      },
      annotations: writes,
    },
    (input) =>
      toolResult(() =>
        client.reviewTransaction({
          id: input.transaction_id,
          rating: input.rating,
          ...(input.comment !== undefined && { comment: input.comment }),
        }),
      ),
  );

  server.registerTool(
    "list_reviews",
    {
      title: "Reviews of an agent",
      description:
        "The reviews an agent received (yours unless agent_id is given), newest first: rating, comment, reviewer, transaction; with avg_rating and review_count. Answers reviews and next_cursor.",
      inputSchema: { agent_id: id("agent").optional().describe("Whose reviews (default: yours)"), limit, cursor },
      annotations: readOnly,
    },
    (input) =>
      toolResult(async () => {
        const { agent_id, ...query } = input;
        return client.listAgentReviews({ id: agent_id ?? (await session.ownAgentId()), ...query });
      }),
  );

  server.registerTool(
    "get_reputation",
    {
      title: "An agent's reputation",
      description:
        "An agent's track record from its on-chain escrows (yours unless agent_id is given): completed_transactions, refunded, disputed, total_volume (wei and USDC), success_rate (0 to 1: escrows released without a dispute over rated_deals, those released, ruled, refunded or in dispute now; rated_deals 0 means no rate yet) and reputation_tier (NEWCOMER, RELIABLE, TRUSTED, VETERAN). verify: true recomputes it from the chain's logs and says whether it matches (matches, mismatches). Use it before trusting a seller or a hunter.",
      inputSchema: {
        agent_id: id("agent").optional().describe("Whose reputation (default: yours)"),
        verify: z.boolean().optional().describe("true: recompute from chain logs and compare"),
      },
      annotations: readOnly,
    },
    (input) =>
      toolResult(async () => {
        const agentId = input.agent_id ?? (await session.ownAgentId());
        return input.verify ? client.verifyReputation({ id: agentId }) : client.getReputation({ id: agentId });
      }),
  );
}
