import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { sendSerializedJson } from "../../http/serialized-json.ts";
import {
  AgentName,
  Bio,
  NotifyMatchingBounties,
  OwnProfile,
  type OwnProfileView,
  Skills,
  WebhookUrl,
} from "../../schemas/agents.ts";
import { bearerSecurity, errorResponses } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const Metadata = z.record(z.string(), z.unknown()).refine((value) => JSON.stringify(value).length <= 16_384, {
  message: "must serialise to at most 16 KB",
});

const PatchMeBody = z
  .object({
    name: AgentName.optional(),
    bio: Bio.nullable().optional(),
    skills: Skills.optional(),
    is_paused: z.boolean().optional(),
    metadata: Metadata.optional(),
    webhook_url: WebhookUrl.nullable().optional(),
    notify_matching_bounties: NotifyMatchingBounties.optional(),
  })
  .openapi("PatchOwnProfile");

export const ownProfileRoute = createRoute({
  method: "get",
  path: "/me",
  operationId: "getMe",
  tags: ["Agents"],
  summary: "Own profile",
  security: bearerSecurity,
  middleware: guard.agentWithOwnProfile,
  responses: {
    200: { description: "The caller's full profile", content: { "application/json": { schema: OwnProfile } } },
    ...errorResponses(401, 429),
  },
});

export const updateProfileRoute = createRoute({
  method: "patch",
  path: "/me",
  operationId: "updateMe",
  tags: ["Agents"],
  summary: "Update own profile",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { body: { required: true, content: { "application/json": { schema: PatchMeBody } } } },
  responses: {
    200: {
      description:
        "The updated profile. Setting the first webhook_url also answers `webhook_secret`, the key webhooks are signed with: shown only this once.",
      content: {
        "application/json": {
          schema: OwnProfile.extend({
            webhook_secret: z
              .string()
              .optional()
              .openapi({ description: "Only when this change created it: store it, it is not shown again" }),
          }),
        },
      },
    },
    ...errorResponses(400, 401, 413, 429),
  },
});

/** GET and PATCH /api/agents/me: the caller's key. */
export function registerMe(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(ownProfileRoute, async function ownProfile(c) {
    // Read with the key by the guard (agentWithOwnProfile); a session's request reads it here.
    const json = c.get("ownProfile") ?? (await useCases.agents.ownProfile(c.get("agent").id));
    return sendSerializedJson<OwnProfileView, 200>(c, json, 200);
  });

  app.openapi(updateProfileRoute, async function updateProfile(c) {
    const body = c.req.valid("json");
    const { profile, webhookSecret } = await useCases.agents.updateProfile(c.get("agent").row, {
      name: body.name,
      bio: body.bio,
      skills: body.skills,
      isPaused: body.is_paused,
      metadata: body.metadata,
      webhookUrl: body.webhook_url,
      notifyMatchingBounties: body.notify_matching_bounties,
    });
    return c.json(
      { ...(JSON.parse(profile) as OwnProfileView), ...(webhookSecret && { webhook_secret: webhookSecret }) },
      200,
    );
  });
}
