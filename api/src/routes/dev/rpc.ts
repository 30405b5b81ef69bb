import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { DEV_RPC_METHODS, type DevWalletUseCases } from "../../domain/dev/dev-wallet.ts";
import type { AppEnv } from "../../http/env.ts";
import { ApiError } from "../../http/errors.ts";
import { isOwnOrigin } from "../../http/request.ts";
import { errorResponses } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const RpcRequest = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string().max(100), z.number(), z.null()]),
    method: z.string().min(1).max(100),
    params: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional(),
  })
  .openapi("DevRpcRequest");

const RpcAnswer = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.unknown().optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .openapi("DevRpcAnswer");

export const rpcRoute = createRoute({
  method: "post",
  path: "/rpc",
  operationId: "callDevRpc",
  tags: ["Development"],
  summary: "The dev wallet: one JSON-RPC request to the local node, whose dev accounts sign (local chain only)",
  description: `Forwards ${DEV_RPC_METHODS.join(", ")} (eth_requestAccounts as eth_accounts) and answers the node's JSON-RPC answer as is; any other method is answered with error -32601. Refused (403) from another site's page (a foreign Origin). Answers clients on the API's own machine only unless DEV_ROUTES=on (anyone else: 404, as if absent).`,
  request: { body: { content: { "application/json": { schema: RpcRequest } }, required: true } },
  responses: {
    200: { description: "The node's JSON-RPC answer", content: { "application/json": { schema: RpcAnswer } } },
    ...errorResponses(400, 403),
  },
});

/**
 * POST /api/dev/rpc: without a key, on the local chain only (the caller passes the use case only
 * there), for the clients devRoutes lets in.
 */
export function registerRpc(
  app: OpenAPIHono<AppEnv>,
  rpc: NonNullable<DevWalletUseCases["rpc"]>,
  { config }: RouteDeps,
) {
  app.openapi(rpcRoute, async function forwardToDevNode(c) {
    // The node signs for whoever asks: no other site open in the browser may ask.
    if (c.req.header("sec-fetch-site") === "cross-site" || !isOwnOrigin(c, config)) {
      throw new ApiError(403, "foreign_origin", "The dev wallet answers only this site's own pages");
    }
    const { id, method, params } = c.req.valid("json");
    return c.json(await rpc({ id, method, params }), 200);
  });
}
