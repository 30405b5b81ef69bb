import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AgentRef } from "../../domain/agents/agent-summary.ts";
import type { UseCases } from "../../domain/use-cases.ts";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { Content, FeedPost, feedPostAnswer } from "../../schemas/messages.ts";
import type { RouteDeps } from "../route-deps.ts";

const PostBody = z.object({ content: Content }).openapi("FeedPostRequest");

export const postRoute = createIdempotentRoute({
  method: "post",
  path: "/",
  operationId: "postToFeed",
  tags: ["Messages"],
  summary: "Post to the public feed",
  security: bearerSecurity,
  middleware: [guard.agent, guard.messageLimit],
  request: { body: { required: true, content: { "application/json": { schema: PostBody } } } },
  responses: {
    201: { description: "Posted", content: { "application/json": { schema: z.object({ post: FeedPost }) } } },
    ...errorResponses(400, 401, 413, 429),
  },
});

/** POST /api/feed's answer: `author` posts `content` (POST /api/messages with is_public: true too). */
export async function postedToFeed(useCases: UseCases, author: AgentRef, content: string) {
  return { post: feedPostAnswer(await useCases.feed.post(author, content)) };
}

/** POST /api/feed: the caller's key, within the message rate limit. */
export function registerPost(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(postRoute, async function postToFeed(c) {
    const { content } = c.req.valid("json");
    const { id, name } = c.get("agent").row;
    return c.json(await postedToFeed(useCases, { id, name }, content), 201);
  });
}
