import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { aliasRoute } from "../../http/alias.ts";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { ActingAgentId, bearerOrReceiptSecurity, errorResponses, HttpUrl, Uuid } from "../../schemas/common.ts";
import { CaseEvidence } from "../../schemas/disputes.ts";
import type { RouteDeps } from "../route-deps.ts";
import { timelineRoute } from "./timeline.ts";

/*
 * POST /api/transactions/{id}/evidence: either party adds evidence while the dispute is open. GET
 * (the live service's path) reads it back: the timeline's evidence, for the parties.
 */

const EvidenceBody = z
  .object({
    content: z.string().trim().min(1).max(4_000),
    url: HttpUrl.optional(),
    ...ActingAgentId,
  })
  .openapi("EvidenceRequest");

const Evidence = z.object({ evidence_id: Uuid, transaction_id: Uuid, created_at: z.string() }).openapi("Evidence");

export const evidenceRoute = createIdempotentRoute({
  method: "post",
  path: "/{id}/evidence",
  operationId: "addEvidence",
  tags: ["Transactions"],
  summary: "Add evidence to an open dispute (either party)",
  security: bearerOrReceiptSecurity,
  middleware: guard.agentOrReceipt,
  request: {
    params: idParam("Transaction"),
    body: { content: { "application/json": { schema: EvidenceBody } }, required: true },
  },
  responses: {
    201: { description: "Recorded", content: { "application/json": { schema: Evidence } } },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export const listEvidenceRoute = aliasRoute(timelineRoute, {
  path: "/{id}/evidence",
  operationId: "listTransactionEvidence",
  of: "GET /api/transactions/{id}/timeline, its EVIDENCE events",
  summary: "The evidence of a transaction, of both sides, oldest first (parties only; alias)",
  note: "Every item either party added (POST /api/transactions/{id}/evidence); an empty list when there is none.",
  responses: {
    ...timelineRoute.responses,
    200: {
      description: "The evidence",
      content: {
        "application/json": {
          schema: z.object({ transaction_id: Uuid, state: z.string(), evidence: z.array(CaseEvidence) }),
        },
      },
    },
  },
});

/** POST /api/transactions/{id}/evidence, and its GET: a party's key. */
export function registerEvidence(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(evidenceRoute, async function addEvidence(c) {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const added = await useCases.disputes.addEvidence({
      transactionId: id,
      agentId: c.get("agent").id,
      content: body.content,
      url: body.url,
    });
    return c.json(added, 201);
  });

  app.openapi(listEvidenceRoute, async function listTransactionEvidence(c) {
    const { id } = c.req.valid("param");
    return c.json(await useCases.disputes.evidenceOf({ transactionId: id, agentId: c.get("agent").id }), 200);
  });
}
