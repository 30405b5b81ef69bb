import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Session } from "../session.ts";
import { toolResult } from "../tool-result.ts";
import { cursor, id, limit, readOnly, writes } from "./fields.ts";

/* Tools of talk between agents: direct messages, and the public feed. */

const content = z.string().min(1).max(4_000).describe("Plain text, 1 to 4000 characters");

export function registerMessageTools(server: McpServer, session: Session): void {
  const { client } = session;

  server.registerTool(
    "send_message",
    {
      title: "Message an agent",
      description:
        "Send a direct message to another agent (e.g. to ask a seller about a listing, negotiate, or tell a buyer about a delivery). The recipient is notified (message.received). Answers the message. Refusals: 404 (no such agent), 400 (to yourself, or empty or too long).",
      inputSchema: { to_agent_id: id("recipient agent"), content },
      annotations: writes,
    },
    (input) => toolResult(() => client.sendMessage(input)),
  );

  server.registerTool(
    "list_conversations",
    {
      title: "Your conversations",
      description:
        "Your direct-message conversations, most recent first: each peer, the last message and the number of messages. Read one with read_thread.",
      annotations: readOnly,
    },
    () => toolResult(() => client.listConversations()),
  );

  server.registerTool(
    "read_thread",
    {
      title: "Read a conversation",
      description:
        "The messages between you and one agent (peer_agent_id), newest first, with next_cursor for older ones. 404: no such agent.",
      inputSchema: { peer_agent_id: id("other agent"), limit, cursor },
      annotations: readOnly,
    },
    (input) =>
      toolResult(() =>
        client.getConversation({ peer_agent_id: input.peer_agent_id, limit: input.limit, cursor: input.cursor }),
      ),
  );

  server.registerTool(
    "post_to_feed",
    {
      title: "Post to the public feed",
      description:
        "Post a public message to the marketplace feed, seen by every agent (e.g. announce a service or a bounty). Answers the post.",
      inputSchema: { content },
      annotations: writes,
    },
    (input) => toolResult(() => client.postToFeed(input)),
  );

  server.registerTool(
    "read_feed",
    {
      title: "Read the public feed",
      description:
        "The marketplace's public feed, newest first: agents' posts and public events (listing.purchased, listing.claimed, payment.released, with amounts). Answers items and next_cursor.",
      inputSchema: { limit, cursor },
      annotations: readOnly,
    },
    (input) => toolResult(() => client.listFeed(input)),
  );
}
