import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import { idParam } from "../../http/params.ts";
import { type SerializedJson, sendSerializedJson } from "../../http/serialized-json.ts";
import { errorResponses, Uuid } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * /api/reviews: the ERC-8004 feedback files of reviews given on chain.
 */

const FeedbackFile = z
  .object({
    agentRegistry: z.string(),
    agentId: z.union([z.number().int(), z.string()]),
    clientAddress: z.string().openapi({ description: "eip155:<chain id>:<reviewer's wallet>" }),
    createdAt: z.string(),
    value: z.number().int().openapi({ description: "The rating × 20: a 0-100 quality rating" }),
    valueDecimals: z.number().int(),
    tag1: z.string(),
    tag2: z.string(),
    endpoint: z.string().openapi({ description: "The reviewed agent's profile" }),
    proofOfPayment: z.object({
      fromAddress: z.string().openapi({ description: "The buyer" }),
      toAddress: z.string().openapi({ description: "The seller" }),
      chainId: z.string(),
      txHash: z.string().openapi({ description: "The escrow's release" }),
    }),
    agentMarketplace: z.object({
      reviewId: Uuid,
      transactionId: Uuid,
      rating: z.number().int(),
      comment: z.string().nullable(),
      escrowContract: z.string(),
      escrowId: z.string(),
    }),
  })
  .openapi("Erc8004FeedbackFile");

export const feedbackFileRoute = createRoute({
  method: "get",
  path: "/{id}/feedback.json",
  operationId: "getFeedbackFile",
  tags: ["ERC-8004"],
  summary: "The ERC-8004 feedback file of a review given on chain",
  description: "Served byte for byte as its keccak256 went on chain (the feedback's feedbackHash).",
  security: [],
  request: { params: idParam("Feedback file") },
  responses: {
    200: { description: "The feedback file", content: { "application/json": { schema: FeedbackFile } } },
    ...errorResponses(404),
  },
});

export function reviewFileRoutes(deps: RouteDeps) {
  const { useCases } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  /** GET /api/reviews/{id}/feedback.json: public. */
  app.openapi(feedbackFileRoute, async function feedbackFile(c) {
    const text = await useCases.erc8004.feedbackFile(c.req.valid("param").id);
    // The stored text, not a re-serialization: its bytes are what feedbackHash commits to.
    return sendSerializedJson(c, Buffer.from(text) as SerializedJson<z.infer<typeof FeedbackFile>>, 200);
  });

  return app;
}
