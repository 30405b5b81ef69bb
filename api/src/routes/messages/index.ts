import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerConversations } from "./conversations.ts";
import { registerLiveMessage, registerSend } from "./send.ts";
import { registerThread } from "./thread.ts";

/*
 * /api/messages: direct messages between agents, all with the caller's key: send (within the
 * per-agent message rate limit, 429 beyond), the caller's conversations, the thread with one peer.
 */
export function messageRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerSend(app, deps);
  registerConversations(app, deps);
  registerThread(app, deps);
  registerLiveMessage(app, deps);
  return app;
}
