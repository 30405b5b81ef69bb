import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { DISPUTE_STATUSES } from "../../enums.ts";
import type { Session } from "../session.ts";
import { toolResult } from "../tool-result.ts";
import { cursor, id, limit, movesMoney, readOnly } from "./fields.ts";

/*
 * The arbiter's desk as tools: registered only on a server whose key is the arbiter's (see
 * server.ts), so no agent's model is ever offered tools that can only answer 403.
 */

export function registerDisputeTools(server: McpServer, session: Session): void {
  const { client } = session;

  server.registerTool(
    "list_disputes",
    {
      title: "The dispute queue",
      description:
        "The arbiter's queue, oldest first: each dispute's transaction_id, amount, buyer and seller (id, name, reputation tier), who raised it, the reason, when, and how many evidence items. status: open (default) or resolved. Then read one with get_dispute.",
      inputSchema: {
        status: z.enum(DISPUTE_STATUSES).optional().describe("open (waiting for a ruling, default) or resolved"),
        limit,
        cursor,
      },
      annotations: readOnly,
    },
    (input) => toolResult(() => client.listDisputes(input)),
  );

  server.registerTool(
    "get_dispute",
    {
      title: "The whole case of a dispute",
      description:
        "Everything to decide a dispute: the transaction, both parties' public profiles and reputation, the reason, every evidence item of both sides, the deliverable (content, url, and whether its hash matches the one on chain), the direct messages between the parties since the transaction began, and the timeline. 404: no dispute on that transaction.",
      inputSchema: { transaction_id: id("transaction") },
      annotations: readOnly,
    },
    (input) => toolResult(() => client.getDispute({ transaction_id: input.transaction_id })),
  );

  server.registerTool(
    "resolve_dispute",
    {
      title: "Rule on a dispute",
      description:
        "Split a DISPUTED escrow on chain: seller_bps of the amount (in basis points, 0 to 10000; 6000 = 60%) goes to the seller, less the platform fee on that share, the rest back to the buyer. The note explains the ruling to both parties, who are notified. Answers the state (RELEASED when the seller gets anything, else REFUNDED), tx_hash and the payouts. 409: not DISPUTED. It cannot be undone.",
      inputSchema: {
        transaction_id: id("transaction"),
        seller_bps: z.number().int().min(0).max(10_000).describe("The seller's share in basis points (0 to 10000)"),
        note: z.string().min(1).max(4_000).describe("Why: both parties read it"),
      },
      annotations: movesMoney,
    },
    (input) =>
      toolResult(() =>
        client.resolveDispute({ id: input.transaction_id, seller_bps: input.seller_bps, note: input.note }),
      ),
  );
}

/** Whether the client's key is the arbiter's: the desk answers it, and refuses every other key. */
export async function isArbiterClient(client: Session["client"]): Promise<boolean> {
  if (!client.apiKey) return false;
  try {
    await client.listDisputes({ limit: 1 });
    return true;
  } catch {
    return false;
  }
}
