import { and, desc, eq, or, type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { agentRecords, agents } from "../../db/schema.ts";
import { completedSql, recordOf, recordOn, volumeSql } from "../reads/track-record.ts";
import { decodeCursor, encodeCursor, isTimestampPosition, timestampPosition } from "../shared/cursor.ts";
import { badRequest } from "../shared/errors.ts";
import { isUuid } from "../shared/ids.ts";
import { ownedByAddress } from "../shared/owned-agents.ts";
import { agentSummary, type DirectoryAgentView } from "./agent-summary.ts";

/*
 * The directory of active agents: keywords (name or bio), a skill and an owner filter, three sorts, each
 * with its own keyset cursor. Records are the kept ones (agent-records.ts), which follow the
 * indexer within one notifier interval.
 */

export const DIRECTORY_SORTS = ["newest", "reputation", "volume"] as const;
export type DirectorySort = (typeof DIRECTORY_SORTS)[number];

export interface DirectoryQuery {
  /** Each must be part of the name or the bio. */
  keywords?: string[];
  skill?: string;
  /** An owner's wallet address: only the agents it owns (owned-agents.ts). */
  owner?: string;
  sort: DirectorySort;
  limit: number;
  cursor?: string;
}

type DirectoryPosition =
  | { sort: "newest"; at: string; id: string }
  | { sort: "reputation"; completed: string; volume: string; id: string }
  | { sort: "volume"; volume: string; id: string };

/** The keyset position of a directory cursor; 400 unless it was made for this sort. */
function directoryPosition(cursor: string, sort: DirectorySort): DirectoryPosition {
  const value = decodeCursor(cursor);
  const count = (v: string | undefined): v is string => v !== undefined && /^\d{1,9}$/.test(v);
  const wei = (v: string | undefined): v is string => v !== undefined && /^\d{1,78}$/.test(v);
  // Cursors made before sorts existed carry no `sort`: they are newest-first.
  if ((value.sort ?? "newest") === sort && isUuid(value.id)) {
    const { id, at, completed, volume } = value;
    if (sort === "newest" && isTimestampPosition(at)) return { sort, at, id };
    if (sort === "reputation" && count(completed) && wei(volume)) return { sort, completed, volume, id };
    if (sort === "volume" && wei(volume)) return { sort, volume, id };
  }
  throw badRequest("Invalid cursor");
}

/** The condition of the rows after `after`, in the sort's keyset order: (sort key..., id) descending. */
function afterPosition(after: DirectoryPosition | undefined): SQL | undefined {
  if (after?.sort === "newest") {
    return sql`(${agents.createdAt}, ${agents.id}) < (${after.at}::timestamptz, ${after.id}::uuid)`;
  }
  if (after?.sort === "reputation") {
    return sql`(${completedSql}, ${volumeSql}, ${agents.id}) < (${after.completed}::int, ${after.volume}::numeric, ${after.id}::uuid)`;
  }
  if (after?.sort === "volume") {
    return sql`(${volumeSql}, ${agents.id}) < (${after.volume}::numeric, ${after.id}::uuid)`;
  }
  return undefined;
}

export function agentDirectory(db: Database) {
  /** A page of active agents and the cursor of the next one (null on the last). */
  return async function directory(
    query: DirectoryQuery,
  ): Promise<{ agents: DirectoryAgentView[]; nextCursor: string | null }> {
    // An agent the service made for an x402 payer is nobody's profile yet: left out until taken over.
    const conditions: (SQL | undefined)[] = [eq(agents.isActive, true), eq(agents.x402Payer, false)];
    for (const keyword of query.keywords ?? []) {
      const pattern = `%${keyword.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
      conditions.push(or(sql`${agents.name} ILIKE ${pattern}`, sql`coalesce(${agents.bio}, '') ILIKE ${pattern}`));
    }
    if (query.skill) conditions.push(sql`${query.skill} = ANY(${agents.skills})`);
    if (query.owner) conditions.push(ownedByAddress(query.owner.toLowerCase()));
    // Keyset: (sort key..., id) descending; the cursor holds the last row's values.
    conditions.push(afterPosition(query.cursor ? directoryPosition(query.cursor, query.sort) : undefined));
    const order = {
      newest: [desc(agents.createdAt), desc(agents.id)],
      reputation: [desc(completedSql), desc(volumeSql), desc(agents.id)],
      volume: [desc(volumeSql), desc(agents.id)],
    }[query.sort];
    const rows = await db
      .select({
        agent: agents,
        record: agentRecords,
        completed: completedSql,
        volume: volumeSql,
        position: timestampPosition(agents.createdAt),
      })
      .from(agents)
      .leftJoin(agentRecords, recordOn)
      .where(and(...conditions))
      .orderBy(...order)
      .limit(query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const position = (row: NonNullable<typeof last>): Record<string, string> => {
      const id = row.agent.id;
      if (query.sort === "newest") return { sort: query.sort, at: row.position, id };
      if (query.sort === "volume") return { sort: query.sort, volume: row.volume, id };
      return { sort: query.sort, completed: String(row.completed), volume: row.volume, id };
    };
    return {
      agents: page.map(({ agent, record }) => agentSummary(agent, recordOf(record))),
      nextCursor: rows.length > query.limit && last ? encodeCursor(position(last)) : null,
    };
  };
}
