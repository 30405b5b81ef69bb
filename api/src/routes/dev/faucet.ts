import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { WalletUseCases } from "../../domain/wallet/wallet.ts";
import type { AppEnv } from "../../http/env.ts";
import { Address, errorResponses, PositiveWei } from "../../schemas/common.ts";

/** Largest faucet grant: 1,000,000 USDC. */
const FAUCET_MAX_WEI = 1_000_000n * 1_000_000n;

const FaucetBody = z
  .object({
    address: Address,
    usdc_wei: PositiveWei.refine((value) => !/^\d+$/.test(value) || BigInt(value) <= FAUCET_MAX_WEI, {
      message: `must be at most ${FAUCET_MAX_WEI} (1,000,000 USDC)`,
    }),
  })
  .openapi("FaucetRequest");

export const faucetRoute = createRoute({
  method: "post",
  path: "/faucet",
  operationId: "requestTestUsdc",
  tags: ["Development"],
  summary: "Mint test USDC to an address (local chain only)",
  description: "Answers clients on the API's own machine only unless DEV_ROUTES=on (anyone else: 404, as if absent).",
  request: { body: { content: { "application/json": { schema: FaucetBody } }, required: true } },
  responses: {
    200: {
      description: "Minted",
      content: {
        "application/json": {
          schema: z.object({ address: z.string(), usdc_wei: z.string(), tx_hash: z.string() }).openapi("FaucetGrant"),
        },
      },
    },
    ...errorResponses(400),
  },
});

/**
 * POST /api/dev/faucet: without a key, on the local chain only (the caller passes the use case only
 * there), for the clients devRoutes lets in.
 */
export function registerFaucet(app: OpenAPIHono<AppEnv>, faucet: NonNullable<WalletUseCases["faucet"]>) {
  app.openapi(faucetRoute, async function mintTestUsdc(c) {
    const body = c.req.valid("json");
    const { txHash } = await faucet({ address: body.address, usdcWei: body.usdc_wei });
    return c.json({ address: body.address, usdc_wei: body.usdc_wei, tx_hash: txHash }, 200);
  });
}
