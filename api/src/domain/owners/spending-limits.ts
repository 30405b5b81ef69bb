import { sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { spendingLimits } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import type { Agent } from "../agents/agents.ts";
import { badRequest } from "../shared/errors.ts";
import {
  dayLeft,
  largestMove,
  SPEND_WINDOW_HOURS,
  type SpendingLimits,
  spentInWindow,
} from "../wallet/spending-caps.ts";
import { ownedActiveAgent } from "./owners.ts";

/*
 * The spending caps an owner sets on a hosted agent (domain/wallet/spending-caps.ts says how every
 * move is judged by them), and what they leave: the last 24 hours' spending, what remains, the
 * largest move allowed now and the moves waiting for approval. The owner reads and sets them with a
 * session; the agent reads its own (an agent's key never changes them: the owners' routes take a
 * session only).
 */

/** An agent's caps and what they leave now, as the API answers them. */
export interface SpendingLimitsView {
  agent_id: string;
  hosted: boolean;
  per_purchase_wei: string | null;
  per_day_wei: string | null;
  approval_above_wei: string | null;
  window_hours: typeof SPEND_WINDOW_HOURS;
  spent_24h_wei: string;
  remaining_24h_wei: string | null;
  max_move_wei: string | null;
  pending_approvals: number;
  updated_at: string | null;
}

/** New caps, in wei digits; null: no cap. */
export interface SetSpendingLimitsInput {
  perPurchaseWei: string | null;
  perDayWei: string | null;
  approvalAboveWei: string | null;
}

const bigOrNull = (value: string | null): bigint | null => (value === null ? null : BigInt(value));
const text = (value: bigint | null): string | null => (value === null ? null : value.toString());

/** The caps of `agent`, what its last 24 hours spent and what waits for approval: two statements at once. */
async function limitsView(db: Database, agent: Agent): Promise<SpendingLimitsView> {
  const [{ rows }, spent] = await Promise.all([
    db.execute<{
      per_purchase_wei: string | null;
      per_day_wei: string | null;
      approval_above_wei: string | null;
      updated_at: string | null;
      pending: number;
    }>(sql`
      SELECT l.per_purchase_wei::text, l.per_day_wei::text, l.approval_above_wei::text,
             to_char(l.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at,
             (SELECT count(*)::int FROM app.spending_approvals a
              WHERE a.agent_id = ${agent.id} AND a.state = 'pending' AND a.expires_at > now()) AS pending
      FROM (SELECT 1) AS one LEFT JOIN app.spending_limits l ON l.agent_id = ${agent.id}`),
    spentInWindow(db, agent.id),
  ]);
  const row = rows[0];
  const limits: SpendingLimits = {
    perPurchaseWei: bigOrNull(row?.per_purchase_wei ?? null),
    perDayWei: bigOrNull(row?.per_day_wei ?? null),
    approvalAboveWei: bigOrNull(row?.approval_above_wei ?? null),
  };
  return {
    agent_id: agent.id,
    hosted: agent.hosted,
    per_purchase_wei: text(limits.perPurchaseWei),
    per_day_wei: text(limits.perDayWei),
    approval_above_wei: text(limits.approvalAboveWei),
    window_hours: SPEND_WINDOW_HOURS,
    spent_24h_wei: spent.toString(),
    remaining_24h_wei: text(dayLeft(limits, spent)),
    max_move_wei: text(largestMove(limits, spent)),
    pending_approvals: row?.pending ?? 0,
    updated_at: row?.updated_at ?? null,
  };
}

export function spendingLimitUseCases(deps: Pick<Deps, "db">) {
  const { db } = deps;

  return {
    /** The caps of an agent `owner` owns (403 another's, 404 none), and what they leave now. */
    async limitsOf(owner: string, agentId: string): Promise<SpendingLimitsView> {
      return limitsView(db, await ownedActiveAgent(db, owner, agentId));
    },

    /**
     * Sets the caps of a hosted agent `owner` owns, all three at once (null: no cap). An external
     * agent signs its own moves, so no cap of the service could hold them: 400. The next move of
     * the agent is judged by them (its wallet's lock orders them with the moves in flight).
     */
    async setLimits(owner: string, agentId: string, input: SetSpendingLimitsInput): Promise<SpendingLimitsView> {
      const agent = await ownedActiveAgent(db, owner, agentId);
      if (!agent.hosted) {
        throw badRequest(
          "Spending caps hold for hosted agents, whose moves the service signs; an external agent signs its own",
        );
      }
      const values = {
        perPurchaseWei: input.perPurchaseWei,
        perDayWei: input.perDayWei,
        approvalAboveWei: input.approvalAboveWei,
        updatedBy: owner,
        updatedAt: sql`now()`,
      };
      await db
        .insert(spendingLimits)
        .values({ agentId, ...values })
        .onConflictDoUpdate({ target: spendingLimits.agentId, set: values });
      return limitsView(db, agent);
    },

    /** The calling agent's own caps and what they leave (read only). */
    ownLimits(agent: Agent): Promise<SpendingLimitsView> {
      return limitsView(db, agent);
    },
  };
}

export type SpendingLimitUseCases = ReturnType<typeof spendingLimitUseCases>;
