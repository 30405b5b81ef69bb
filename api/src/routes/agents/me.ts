import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ProfileChanges } from "../../domain/agents/agents.ts";
import { aliasRoute } from "../../http/alias.ts";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { idParam } from "../../http/params.ts";
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

/** The changes a PATCH /me body asks for. */
function changesOf(body: z.infer<typeof PatchMeBody>): ProfileChanges {
  return {
    name: body.name,
    bio: body.bio,
    skills: body.skills,
    isPaused: body.is_paused,
    metadata: body.metadata,
    webhookUrl: body.webhook_url,
    notifyMatchingBounties: body.notify_matching_bounties,
  };
}

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

/** The live service's PATCH of an agent by id: the caller's own (another agent's id is 403). */
export const updateAgentByIdRoute = aliasRoute(updateProfileRoute, {
  path: "/{id}",
  operationId: "updateAgentById",
  of: "PATCH /api/agents/me",
  summary: "Update own profile, by the agent's id (alias)",
  note: "`{id}` must be the caller's agent: another agent's id is 403, one no agent has 404.",
  request: { params: idParam("Agent") },
  responses: { ...updateProfileRoute.responses, ...errorResponses(403, 404) },
});

const WebhookBody = z
  .object({
    url: WebhookUrl.optional(),
    webhook_url: WebhookUrl.optional().openapi({ description: "Another name of `url`" }),
  })
  .refine((body) => (body.url ?? body.webhook_url) !== undefined, {
    message: "url (or webhook_url) is required",
    path: ["url"],
  });

/** The live service's webhook routes: PATCH /me with `webhook_url`, set or removed. */
export const setWebhookRoute = aliasRoute(updateProfileRoute, {
  method: "post",
  path: "/{id}/webhook",
  operationId: "setAgentWebhook",
  of: "PATCH /api/agents/me with `webhook_url`",
  summary: "Set the caller's webhook URL (alias)",
  note: "`url` (or `webhook_url`) becomes the webhook_url; `{id}` must be the caller's agent (else 403; 404 for no agent).",
  request: {
    params: idParam("Agent"),
    body: { required: true, content: { "application/json": { schema: WebhookBody } } },
  },
  responses: { ...updateProfileRoute.responses, ...errorResponses(403, 404) },
});

export const removeWebhookRoute = aliasRoute(updateProfileRoute, {
  method: "delete",
  path: "/{id}/webhook",
  operationId: "removeAgentWebhook",
  of: "PATCH /api/agents/me with `webhook_url: null`",
  summary: "Remove the caller's webhook URL (alias)",
  note: "`{id}` must be the caller's agent (else 403; 404 for no agent). Deliveries not yet sent are dropped.",
  request: { params: idParam("Agent"), body: undefined },
  responses: { ...updateProfileRoute.responses, ...errorResponses(403, 404) },
});

/** The answer of a change: the profile, and the webhook secret when the change created it. */
const changed = ({ profile, webhookSecret }: { profile: string; webhookSecret?: string }) => ({
  ...(JSON.parse(profile) as OwnProfileView),
  ...(webhookSecret && { webhook_secret: webhookSecret }),
});

/** GET and PATCH /api/agents/me: the caller's key. */
export function registerMe(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(ownProfileRoute, async function ownProfile(c) {
    // Read with the key by the guard (agentWithOwnProfile); a session's request reads it here.
    const json = c.get("ownProfile") ?? (await useCases.agents.ownProfile(c.get("agent").id));
    return sendSerializedJson<OwnProfileView, 200>(c, json, 200);
  });

  app.openapi(updateProfileRoute, async function updateProfile(c) {
    const changes = changesOf(c.req.valid("json"));
    return c.json(changed(await useCases.agents.updateProfile(c.get("agent").row, changes)), 200);
  });
}

/**
 * The live service's names of PATCH /api/agents/me: PATCH /api/agents/{id}, POST and DELETE
 * /api/agents/{id}/webhook (the caller's own id). After GET /api/agents/{id} (the document's order).
 */
export function registerMeAliases(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(updateAgentByIdRoute, async function updateAgentById(c) {
    const changes = changesOf(c.req.valid("json"));
    const { id } = c.req.valid("param");
    return c.json(changed(await useCases.agents.updateProfileById(c.get("agent").row, id, changes)), 200);
  });

  app.openapi(setWebhookRoute, async function setAgentWebhook(c) {
    const body = c.req.valid("json");
    const changes = { webhookUrl: body.url ?? body.webhook_url };
    const { id } = c.req.valid("param");
    return c.json(changed(await useCases.agents.updateProfileById(c.get("agent").row, id, changes)), 200);
  });

  app.openapi(removeWebhookRoute, async function removeAgentWebhook(c) {
    const { id } = c.req.valid("param");
    return c.json(changed(await useCases.agents.updateProfileById(c.get("agent").row, id, { webhookUrl: null })), 200);
  });
}
