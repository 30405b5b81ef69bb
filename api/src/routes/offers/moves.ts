import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { CounterOfferBody, OfferAnswer, OfferNoteBody } from "../../schemas/offers.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * The moves of an offer: the party whose turn it is counters, accepts or declines; the buyer
 * withdraws. Out of turn, or on an offer that no longer allows the move (accepted, closed,
 * expired): 409 with the offer's `status` and `turn`.
 */

const moveResponses = {
  200: { description: "The offer after the move", content: { "application/json": { schema: OfferAnswer } } },
  ...errorResponses(400, 401, 403, 404, 409, 413, 429),
};

export const counterOfferRoute = createIdempotentRoute({
  method: "post",
  path: "/{id}/counter",
  operationId: "counterOffer",
  tags: ["Offers"],
  summary: "Propose another price (the party whose turn it is)",
  security: bearerSecurity,
  middleware: guard.agent,
  request: {
    params: idParam("Offer"),
    body: { required: true, content: { "application/json": { schema: CounterOfferBody } } },
  },
  responses: moveResponses,
});

/** A move with at most a note: accept, decline, withdraw. */
function noteMoveRoute(path: "accept" | "decline" | "withdraw", operationId: string, summary: string) {
  return createIdempotentRoute({
    method: "post",
    path: `/{id}/${path}`,
    operationId,
    tags: ["Offers"],
    summary,
    security: bearerSecurity,
    middleware: guard.agent,
    request: {
      params: idParam("Offer"),
      body: { required: false, content: { "application/json": { schema: OfferNoteBody } } },
    },
    responses: moveResponses,
  });
}

export const acceptOfferRoute = noteMoveRoute(
  "accept",
  "acceptOffer",
  "Accept the price proposed (the party whose turn it is)",
);
export const declineOfferRoute = noteMoveRoute(
  "decline",
  "declineOffer",
  "Decline the offer (the party whose turn it is)",
);
export const withdrawOfferRoute = noteMoveRoute("withdraw", "withdrawOffer", "Withdraw the offer (the buyer)");

/** POST /api/offers/{id}/counter, accept, decline and withdraw: a party's key. */
export function registerOfferMoves(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(counterOfferRoute, async function counterOffer(c) {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const offer = await useCases.offers.move(c.get("agent").row, id, "counter", {
      priceWei: BigInt(body.price_wei),
      message: body.message,
    });
    return c.json({ offer }, 200);
  });
  for (const [route, kind] of [
    [acceptOfferRoute, "accept"],
    [declineOfferRoute, "decline"],
    [withdrawOfferRoute, "withdraw"],
  ] as const) {
    app.openapi(route, async function offerMove(c) {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      const offer = await useCases.offers.move(c.get("agent").row, id, kind, { message: body?.message });
      return c.json({ offer }, 200);
    });
  }
}
