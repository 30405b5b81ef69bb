import { eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { listings } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { type NewNotification, notify } from "../../notifications/notify.ts";
import type { ApiPaths } from "../shared/api-paths.ts";
import { formatUsdc } from "../shared/money.ts";

/*
 * Push discovery: when a BOUNTY opens to hunters (a hosted poster's at once, an external poster's
 * once its funding is confirmed or found by the keeper), every active agent whose skills match it
 * gets a `bounty.matching` notification (stream and webhook, through notify()). A skill matches
 * when it is, case-insensitively, the bounty's category or a whole word (or two adjacent words) of
 * its title or description. Never the poster; never an agent that opted out
 * (`notify_matching_bounties: false`); at most `MATCHING_BOUNTIES_PER_HOUR` per agent in any hour
 * (counted from its recent bounty.matching notifications); once per bounty and price. The
 * bounty keeps the price it was told at (matching_price_wei, written with the notifications): the
 * keeper tells any open bounty whose price differs, so a crash after the post loses no telling.
 */

/** A bounty's words beyond this many are not compared (a description is at most 10,000 characters). */
const MAX_WORDS = 5_000;
/** Notifications written per statement. */
const BATCH = 1_000;

/** The bounty as matching reads it. */
export interface MatchedBounty {
  id: string;
  agentId: string;
  title: string;
  description: string;
  category: string;
  priceWei: string;
  acceptsProposals: boolean;
}

/**
 * The words a skill may equal to match the bounty, lowercase: its category, each word of its title
 * and description (a word keeps inner `+ # . - _`, as in "c++", "node.js"; its parts count too),
 * and each two adjacent words ("machine learning").
 */
export function bountyWords(bounty: Pick<MatchedBounty, "title" | "description" | "category">): string[] {
  const text = `${bounty.title}\n${bounty.description}`.toLowerCase();
  const words = new Set<string>([bounty.category.toLowerCase()]);
  for (const token of text.match(/[\p{L}\p{N}][\p{L}\p{N}+#._-]*/gu) ?? []) {
    const word = token.replace(/[._-]+$/, "");
    words.add(word);
    for (const part of word.split(/[+#._-]+/)) if (part) words.add(part);
  }
  const plain = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  for (let i = 0; i + 1 < plain.length; i++) words.add(`${plain[i]} ${plain[i + 1]}`);
  return [...words].filter((word) => word.length <= 50).slice(0, MAX_WORDS);
}

/** The dedupe key of a bounty's matching notification: once per bounty and price. */
export function matchingKey(listingId: string, priceWei: string): string {
  return `bounty.matching:${listingId}:${priceWei}`;
}

/** Serialises the matching notifications, so each agent's hourly count holds under concurrency. */
const MATCHING_LOCK = sql`pg_advisory_xact_lock(hashtext('app.bounty_matching'))`;

/**
 * The agents `bounty` matches now and may be told (one statement over the GIN index of their
 * lowercase skills), with the skills that matched.
 */
async function matchingAgents(
  tx: Pick<Database, "execute">,
  bounty: MatchedBounty,
  perHour: number,
): Promise<{ id: string; matched: string[] }[]> {
  const words = sql.param(bountyWords(bounty));
  const { rows } = await tx.execute<{ id: string; matched: string[] }>(sql`
    SELECT a.id, ARRAY(SELECT s FROM unnest(a.skills) AS s WHERE lower(s) = ANY(${words}::text[])) AS matched
    FROM app.agents a
    WHERE app.lower_skills(a.skills) && ${words}::text[]
      AND a.is_active AND a.notify_matching_bounties AND a.id <> ${bounty.agentId}
      AND NOT EXISTS (SELECT 1 FROM app.notifications n
                      WHERE n.agent_id = a.id AND n.dedupe_key = ${matchingKey(bounty.id, bounty.priceWei)})
      AND (SELECT count(*) FROM app.notifications n
           WHERE n.agent_id = a.id AND n.kind = 'bounty.matching'
             AND n.created_at > now() - interval '1 hour') < ${perHour}`);
  return rows;
}

export function bountyMatching(
  deps: Pick<Deps, "db" | "config" | "logger">,
  paths: Pick<ApiPaths, "claimBounty" | "bountyProposals">,
) {
  const { db, config } = deps;

  /** The notification of `bounty` to an agent whose `matched` skills it matches. */
  function notice(bounty: MatchedBounty, agent: { id: string; matched: string[] }): NewNotification {
    const takeWith = bounty.acceptsProposals
      ? `POST ${paths.bountyProposals(bounty.id)}`
      : `POST ${paths.claimBounty(bounty.id)}`;
    return {
      agentId: agent.id,
      kind: "bounty.matching",
      dedupeKey: matchingKey(bounty.id, bounty.priceWei),
      payload: {
        listing_id: bounty.id,
        title: bounty.title,
        category: bounty.category,
        price_wei: bounty.priceWei,
        price_usdc: formatUsdc(bounty.priceWei),
        accepts_proposals: bounty.acceptsProposals,
        matched_skills: agent.matched,
        ...(bounty.acceptsProposals ? { propose_with: takeWith } : { claim_with: takeWith }),
      },
    };
  }

  /**
   * Tells the agents the open BOUNTY `listingId` matches; answers their ids. Nothing for a listing
   * that is not an open bounty, or with the hourly cap at 0.
   */
  async function notifyMatching(listingId: string): Promise<string[]> {
    return db.transaction(async (tx) => {
      await tx.execute(sql`SELECT ${MATCHING_LOCK}`);
      const [bounty] = await tx
        .select({
          id: listings.id,
          agentId: listings.agentId,
          title: listings.title,
          description: listings.description,
          category: listings.category,
          priceWei: listings.priceWei,
          acceptsProposals: listings.acceptsProposals,
          listingType: listings.listingType,
          isActive: listings.isActive,
        })
        .from(listings)
        .where(eq(listings.id, listingId));
      if (bounty?.listingType !== "BOUNTY" || !bounty.isActive) return [];
      const agents =
        config.matchingBountiesPerHour > 0 ? await matchingAgents(tx, bounty, config.matchingBountiesPerHour) : [];
      for (let i = 0; i < agents.length; i += BATCH) {
        await notify(
          tx,
          agents.slice(i, i + BATCH).map((agent) => notice(bounty, agent)),
        );
      }
      // Told at this price, with the notifications: the keeper's sweep (notifyDue) passes it by.
      await tx.update(listings).set({ matchingPriceWei: bounty.priceWei }).where(eq(listings.id, bounty.id));
      return agents.map((agent) => agent.id);
    });
  }

  /**
   * The open bounties whose matching agents were not told at their price (a crash between the
   * bounty's listing and its telling, or a listing path that does not tell), told now: the keeper
   * runs it. Answers their ids.
   */
  async function notifyDue(limit = 100): Promise<string[]> {
    const due = await db
      .select({ id: listings.id })
      .from(listings)
      .where(
        sql`${listings.listingType} = 'BOUNTY' AND ${listings.isActive} AND NOT ${listings.awaitingFunding} AND ${listings.matchingPriceWei} IS DISTINCT FROM ${listings.priceWei}`,
      )
      .limit(limit);
    for (const { id } of due) await notifyMatching(id);
    return due.map(({ id }) => id);
  }

  return {
    notifyMatching,
    notifyDue,
    /**
     * A bounty opened to hunters (or its price rose): its matching agents told. Best effort, as a
     * webhook is: the bounty is open whatever happens here, so a failure is logged, not answered.
     */
    async bountyOpened(listingId: string): Promise<void> {
      await notifyMatching(listingId).catch((error: unknown) => {
        deps.logger.warn({ err: error, listing_id: listingId }, "bounty.matching notifications not sent");
      });
    },
  };
}

export type BountyMatching = ReturnType<typeof bountyMatching>;
