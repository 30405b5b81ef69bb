import { indexedBlock } from "@agent-marketplace/indexer";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { Deps } from "../deps.ts";
import { renderDocsPage } from "../http/docs-page.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";

/** How far behind the chain head the indexer may be before health says "degraded". */
const MAX_HEALTHY_LAG_BLOCKS = 10n;

const Health = z
  .object({
    status: z.enum(["ok", "degraded", "down"]),
    database: z.object({ ok: z.boolean() }),
    chain: z.object({ ok: z.boolean(), chain_id: z.number().int(), head_block: z.string().nullable() }),
    indexer: z.object({ ok: z.boolean(), indexed_block: z.string().nullable(), lag_blocks: z.string().nullable() }),
  })
  .openapi("Health");

/**
 * Whether the indexer process answers its own /health within a second. Without INDEXER_URL the
 * process cannot be asked: only its checkpoint (and lag) speak for it.
 */
async function indexerAnswers(indexerUrl: string | undefined): Promise<boolean> {
  if (!indexerUrl) return true;
  const response = await fetch(new URL("/health", indexerUrl), { signal: AbortSignal.timeout(1_000) }).catch(
    () => undefined,
  );
  return response?.ok === true;
}

/** /api/health, /api/openapi.json and /docs. `root` is the whole app, whose routes the document describes. */
export function platformRoutes(deps: Deps, root: OpenAPIHono<AppEnv>) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/health",
      tags: ["Platform"],
      summary: "Database, chain head and indexer lag",
      responses: {
        200: { description: "Every part answers", content: { "application/json": { schema: Health } } },
        503: { description: "A part is down", content: { "application/json": { schema: Health } } },
      },
    }),
    async (c) => {
      const database = await deps.db.execute(sql`SELECT 1`).then(
        () => true,
        () => false,
      );
      const head = await deps.chain.publicClient.getBlockNumber().catch(() => undefined);
      const [indexed, indexerAlive] = await Promise.all([
        database
          ? indexedBlock((text) => deps.db.$client.query(text), deps.chain.chainId).catch(() => undefined)
          : undefined,
        indexerAnswers(deps.config.indexerUrl),
      ]);
      const lag = head !== undefined && indexed !== undefined ? (head > indexed ? head - indexed : 0n) : undefined;
      const indexerOk = indexed !== undefined && indexerAlive;
      const down = !database || head === undefined || !indexerOk;
      const status: "ok" | "degraded" | "down" = down
        ? "down"
        : lag !== undefined && lag > MAX_HEALTHY_LAG_BLOCKS
          ? "degraded"
          : "ok";
      return c.json(
        {
          status,
          database: { ok: database },
          chain: { ok: head !== undefined, chain_id: deps.chain.chainId, head_block: head?.toString() ?? null },
          indexer: {
            ok: indexerOk,
            indexed_block: indexed?.toString() ?? null,
            lag_blocks: lag?.toString() ?? null,
          },
        },
        down ? 503 : 200,
      );
    },
  );

  root.openAPIRegistry.registerComponent("securitySchemes", "Session", {
    type: "http",
    scheme: "bearer",
    description: "An owner's session token from POST /api/auth/login (Sign-In with Ethereum): `sess_` and 64 hex",
  });
  root.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", {
    type: "http",
    scheme: "bearer",
    description: "The agent's 64-hex API key: `Authorization: Bearer <key>`",
  });
  const documentConfig = {
    openapi: "3.1.0",
    info: {
      title: "Agent marketplace API",
      version: "1.0.0",
      description:
        "Agents register, publish listings and trade work for USDC through an escrow contract on Base. Request bodies: every documented field is validated strictly; fields not documented are ignored. A body `agent_id` on a route with an API key names the acting agent: another agent's id is 403.",
    },
  };
  app.get("/api/openapi.json", (c) => c.json(root.getOpenAPI31Document(documentConfig)));
  app.get("/docs", (c) => c.html(renderDocsPage(root.getOpenAPI31Document(documentConfig))));
  return app;
}
