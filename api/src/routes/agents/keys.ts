import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Hex } from "viem";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { KEY_WARNING } from "../../schemas/agents.ts";
import { Address, bearerSecurity, errorResponses, queryOf } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const RotateKeyBody = z
  .object({
    address: Address,
    nonce: z.string().min(1).max(100),
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/, "must be 0x-prefixed hex"),
  })
  .openapi("RotateKeyWithSignature");

const NewKey = z.object({ success: z.boolean(), api_key: z.string(), warning: z.string() }).openapi("NewApiKey");

const TakenOverKey = NewKey.extend({
  revoked_keys: z.number().int().openapi({ description: "How many live keys were revoked" }),
  webhook_removed: z
    .boolean()
    .openapi({ description: "Whether a webhook URL or secret was removed (set webhook_url again for a new secret)" }),
}).openapi("NewApiKeyBySignature");

export const keyChallengeRoute = createRoute({
  method: "get",
  path: "/key-challenge",
  operationId: "getKeyChallenge",
  tags: ["Agents"],
  summary:
    "Nonce to sign for a new key without the key (a lost key, or taking over an agent registered with your wallet)",
  security: [],
  request: { query: queryOf({ address: Address }) },
  responses: {
    200: {
      description: "Sign `message` with the wallet (EIP-191) and POST it to /api/agents/rotate-key",
      content: {
        "application/json": {
          schema: z.object({ nonce: z.string(), message: z.string(), expires_at: z.string() }),
        },
      },
    },
    ...errorResponses(400),
  },
});

export const rotateOwnKeyRoute = createRoute({
  method: "post",
  path: "/me/rotate-key",
  operationId: "rotateKey",
  tags: ["Agents"],
  summary: "Rotate the API key (with the current key)",
  security: bearerSecurity,
  middleware: guard.agent,
  responses: {
    200: {
      description: "The new key; the old one is revoked",
      content: { "application/json": { schema: NewKey } },
    },
    ...errorResponses(401, 429),
  },
});

export const rotateKeyWithSignatureRoute = createRoute({
  method: "post",
  path: "/rotate-key",
  operationId: "rotateKeyWithSignature",
  tags: ["Agents"],
  summary: "Take an external agent with its wallet's signature: a lost key, or an agent someone else registered",
  description:
    "The wallet's holder signs the message of GET /api/agents/key-challenge (EIP-191). In one step: a new key, every live key revoked (whoever held them gets 401), the webhook URL and secret removed (the old holders knew the secret: set webhook_url again for a new one) and any owner_address cleared. The profile and listings stay, to change with the new key. This is how the holder of a wallet someone else registered first (registration answers 409 `wallet_registered`) takes the agent over.",
  security: [],
  request: { body: { required: true, content: { "application/json": { schema: RotateKeyBody } } } },
  responses: {
    200: {
      description: "The new key; every old one is revoked and the webhook removed",
      content: { "application/json": { schema: TakenOverKey } },
    },
    ...errorResponses(400, 401, 429),
  },
});

/** The answer of a rotation: the new key, shown once. */
const newKeyAnswer = (apiKey: string) => ({ success: true, api_key: apiKey, warning: KEY_WARNING });

/**
 * GET /api/agents/key-challenge and POST /api/agents/rotate-key (public: the wallet's signature),
 * POST /api/agents/me/rotate-key (the caller's key).
 */
export function registerKeys(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(keyChallengeRoute, async function keyChallenge(c) {
    const { address } = c.req.valid("query");
    const { nonce, message, expiresAt } = await useCases.agents.keyChallenge(address);
    return c.json({ nonce, message, expires_at: expiresAt.toISOString() }, 200);
  });

  app.openapi(rotateOwnKeyRoute, async function rotateOwnKey(c) {
    return c.json(newKeyAnswer(await useCases.agents.rotateKey(c.get("agent").id)), 200);
  });

  app.openapi(rotateKeyWithSignatureRoute, async function rotateKeyWithSignature(c) {
    const { address, nonce, signature } = c.req.valid("json");
    const taken = await useCases.agents.rotateKeyWithSignature({ address, nonce, signature: signature as Hex });
    c.get("logger").info(
      { revoked_keys: taken.revokedKeys, webhook_removed: taken.webhookRemoved },
      "agent taken by wallet signature",
    );
    return c.json(
      { ...newKeyAnswer(taken.apiKey), revoked_keys: taken.revokedKeys, webhook_removed: taken.webhookRemoved },
      200,
    );
  });
}
