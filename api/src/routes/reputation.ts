import { indexedBlock } from "@agent-marketplace/indexer";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import { agents } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { notFound } from "../domain/errors.ts";
import { isUuid } from "../domain/ids.ts";
import { REPUTATION_TIERS, reputationTier, successRate, type TrackRecord } from "../domain/reputation.ts";
import { trackRecordFromLogs } from "../domain/reputation-from-logs.ts";
import { recordsOf } from "../domain/track-record.ts";
import type { AppEnv } from "../http/env.ts";
import { ApiError, validationHook } from "../http/errors.ts";
import { errorResponses, Uuid } from "../schemas/common.ts";

/*
 * Reputation from indexed escrows only (chain.account_stats), and its verification: the same
 * figures recomputed from the escrow contract's logs up to the block the indexer has reached,
 * field by field.
 */

const Figures = z.object({
  completed_transactions: z.number().int(),
  refunded: z.number().int(),
  disputed: z.number().int(),
  total_volume_wei: z.string(),
  success_rate: z.number().openapi({ description: "completed / (completed + refunded), 0 to 1" }),
  reputation_tier: z.enum(REPUTATION_TIERS),
});

const Reputation = Figures.extend({ agent_id: Uuid, wallet_address: z.string() }).openapi("Reputation");

const Verification = z
  .object({
    agent_id: Uuid,
    wallet_address: z.string(),
    block_number: z.string().openapi({ description: "Both figures are as of this block" }),
    matches: z.boolean(),
    mismatches: z.array(z.string()).openapi({ description: "Fields whose values differ" }),
    indexed: Figures,
    chain: Figures,
  })
  .openapi("ReputationVerification");

function figuresOf(record: TrackRecord): z.infer<typeof Figures> {
  return {
    completed_transactions: record.completed,
    refunded: record.refunded,
    disputed: record.disputed,
    total_volume_wei: record.volumeWei.toString(),
    success_rate: successRate(record),
    reputation_tier: reputationTier(record),
  };
}

export function reputationRoutes(deps: Deps) {
  const { db, chain } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const Params = z.object({ id: z.string().openapi({ format: "uuid" }) });

  async function agentWallet(id: string): Promise<Address> {
    if (!isUuid(id)) throw notFound("Agent");
    const [agent] = await db
      .select({ wallet: agents.walletAddress })
      .from(agents)
      .where(and(eq(agents.id, id), eq(agents.isActive, true)));
    if (!agent) throw notFound("Agent");
    return getAddress(agent.wallet);
  }

  async function indexedRecord(wallet: Address): Promise<TrackRecord> {
    const record = (await recordsOf(db, chain.chainId, [wallet])).get(wallet.toLowerCase());
    return record ?? { completed: 0, refunded: 0, disputed: 0, volumeWei: 0n };
  }

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/agents/{id}/reputation",
      tags: ["Reputation"],
      summary: "An agent's reputation, from indexed escrows only",
      request: { params: Params },
      responses: {
        200: { description: "The figures and tier", content: { "application/json": { schema: Reputation } } },
        ...errorResponses(404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const wallet = await agentWallet(id);
      return c.json({ agent_id: id, wallet_address: wallet, ...figuresOf(await indexedRecord(wallet)) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/agents/{id}/reputation/verify",
      tags: ["Reputation"],
      summary: "Recompute the reputation from the escrow's chain logs and compare it with the indexed one",
      description:
        "Reads every log of the escrow contract from its deployment up to the block the indexer has reached, so both figures describe the same block.",
      request: { params: Params },
      responses: {
        200: {
          description: "Both figures and the fields that differ",
          content: { "application/json": { schema: Verification } },
        },
        ...errorResponses(404, 503),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const wallet = await agentWallet(id);
      const query = (text: string) => db.$client.query(text);
      // The indexed figures of one block: read them between two equal readings of the checkpoint.
      let block: bigint | undefined;
      let indexed: TrackRecord | undefined;
      for (let attempt = 0; attempt < 5 && indexed === undefined; attempt++) {
        const before = await indexedBlock(query, chain.chainId);
        const record = await indexedRecord(wallet);
        const after = await indexedBlock(query, chain.chainId);
        if (before !== undefined && before === after) {
          block = before;
          indexed = record;
        }
      }
      if (block === undefined || indexed === undefined) {
        throw new ApiError(503, "indexer_behind", "The indexer has no settled block to compare with; retry shortly");
      }
      const escrow = chain.deployment.contracts.AgentEscrow;
      const fromChain = await trackRecordFromLogs(
        chain.publicClient,
        escrow.address,
        wallet,
        BigInt(escrow.startBlock),
        block,
      );
      const indexedFigures = figuresOf(indexed);
      const chainFigures = figuresOf(fromChain);
      const mismatches = (Object.keys(indexedFigures) as (keyof typeof indexedFigures)[]).filter(
        (key) => indexedFigures[key] !== chainFigures[key],
      );
      return c.json(
        {
          agent_id: id,
          wallet_address: wallet,
          block_number: block.toString(),
          matches: mismatches.length === 0,
          mismatches,
          indexed: indexedFigures,
          chain: chainFigures,
        },
        200,
      );
    },
  );

  return app;
}
