import { and, inArray, type SQLWrapper, sql } from "drizzle-orm";
import { keepNewestChanges } from "../../db/change-logs.ts";
import type { Database } from "../../db/client.ts";
import { agents, browseChanges, listings } from "../../db/schema.ts";
import { type IndexedListing, type ListingEntry, ListingIndex, priceOf, wordsHash } from "./listing-index.ts";

/*
 * This process's listing index, as current as Postgres at the moment each page is asked for.
 * app.browse_changes (migration 0026) numbers every change a page shows in commit order; a page
 * first reads the newest number (in the round trip that also parses its keyword, `check`), and if
 * the index is behind it, reads the listings and sellers changed since (one reader at a time, the
 * other pages wait for it) before searching. So a page shows every write committed before it was
 * asked for, whichever process made the write: nothing is cached for a while.
 */

/** Changes kept in app.browse_changes: a process further behind than this loads everything again. */
export const BROWSE_CHANGES_KEPT = 10_000;

/** How often an API process prunes app.browse_changes. */
export const BROWSE_CHANGES_PRUNE_MS = 60_000;

/** Caught up from this many changed listings on; more, and everything is loaded again. */
const RELOAD_ABOVE = 20_000;

/** What each page's round trip answers: the newest change, and its keyword as Postgres parses it. */
const CHECK = {
  name: "listing_index_check",
  text: `SELECT (SELECT max(version) FROM app.browse_changes) AS version,
    CASE WHEN $1::text IS NULL THEN NULL ELSE to_tsquery('simple', $1::text)::text END AS terms`,
};

/** A page's keyword as prefixes of lexemes, from Postgres' text of its tsquery (`'a':* & 'b':*`); undefined for any other form. */
export function prefixesOfTsQuery(text: string): string[] | undefined {
  const term = /'((?:[^']|'')+)':\*(?: & |$)/y;
  const prefixes: string[] = [];
  while (term.lastIndex < text.length) {
    const match = term.exec(text);
    if (!match) return undefined;
    prefixes.push((match[1] as string).replaceAll("''", "'"));
  }
  return prefixes.length > 0 ? prefixes : undefined;
}

/** What a card shows of its seller: app.agents' columns (its kept figures, kept-tiers.ts). */
export interface SellerColumns {
  id: SQLWrapper;
  name: SQLWrapper;
  tier: SQLWrapper;
  ratedDeals: SQLWrapper;
  successPercent: SQLWrapper;
}

/** The columns of app.agents a card's seller is written from. */
export const sellerColumnsOfAgents: SellerColumns = {
  id: agents.id,
  name: agents.name,
  tier: agents.reputationTier,
  ratedDeals: agents.ratedDeals,
  successPercent: agents.successPercent,
};

/** The seller's part of a card: its last field, `agent`, and the card's closing brace (listing-browse.ts). */
export type SellerSuffixSql = (seller: SellerColumns) => SQLWrapper;

/** Listings read per statement when everything is loaded: the rows of one batch are let go before the next. */
const LOAD_BATCH = 1_000;

export function listingIndexSync(db: Database, sellerSuffixSql: SellerSuffixSql) {
  let index = new ListingIndex();
  /** Each listed seller's part of its cards. */
  let sellers = new Map<string, string>();
  /** The newest change the index holds; -1 before it is loaded. */
  let version = -1;
  let reading: Promise<void> | undefined;
  let loads = 0;

  const listedSql = and(listings.isActive, listings.sellerListed, sql`${listings.cardText} IS NOT NULL`);
  const listingColumns = {
    id: listings.id,
    agentId: listings.agentId,
    category: listings.category,
    listingType: listings.listingType,
    priceWei: sql<string>`${listings.priceWei}::text`,
    timesPurchased: listings.timesPurchased,
    createdAt: sql<string>`(extract(epoch FROM ${listings.createdAt}) * 1000000)::bigint`,
    card: sql<string>`${listings.cardText}`,
    words: sql<string[]>`tsvector_to_array(${listings.search})`,
  };
  const sellerColumns = {
    id: agents.id,
    suffix: sql<string>`${sellerSuffixSql(sellerColumnsOfAgents)}`,
  };
  const span = sql`SELECT coalesce(max(${browseChanges.version}), 0)::bigint AS newest, coalesce(min(${browseChanges.version}), 0)::bigint AS oldest FROM ${browseChanges}`;

  /** Category and type names, and sellers' ids, shared by every listing that has them. */
  const shared = new Map<string, string>();
  const share = (value: string) => {
    const known = shared.get(value);
    if (known !== undefined) return known;
    shared.set(value, value);
    return value;
  };

  function entryOf(row: {
    id: string;
    agentId: string;
    category: string;
    listingType: string;
    priceWei: string;
    timesPurchased: number;
    createdAt: string;
    card: string;
    words: string[];
  }): ListingEntry {
    const listing: IndexedListing = {
      id: row.id,
      agentId: share(row.agentId),
      category: share(row.category),
      listingType: share(row.listingType),
      price: priceOf(row.priceWei),
      timesPurchased: row.timesPurchased,
      createdAt: Number(row.createdAt),
      card: row.card,
      wordsHash: wordsHash(row.words),
      slot: -1,
    };
    return { listing, words: row.words };
  }

  type Reader = Pick<Database, "select" | "execute">;

  async function spanOf(tx: Reader): Promise<{ newest: number; oldest: number }> {
    const { rows } = await tx.execute<{ newest: string; oldest: string }>(span);
    const row = rows[0] as { newest: string; oldest: string };
    return { newest: Number(row.newest), oldest: Number(row.oldest) };
  }

  async function readSellers(tx: Reader, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const rows = await tx.select(sellerColumns).from(agents).where(inArray(agents.id, ids));
    for (const row of rows) sellers.set(share(row.id), row.suffix);
  }

  /**
   * Everything, in one snapshot: the newest change, the listed listings (in batches) and their
   * sellers, into a new index that replaces the old one when it is complete. A page that needs
   * what is being read waits for it, as for any catch-up; one that needs no more than the old
   * index holds (asked before the changes being read) is answered from the old one meanwhile.
   */
  async function load(): Promise<void> {
    await db.transaction(
      async (tx) => {
        const { newest } = await spanOf(tx);
        const next = new ListingIndex();
        let after = "00000000-0000-0000-0000-000000000000";
        for (;;) {
          const rows = await tx
            .select(listingColumns)
            .from(listings)
            .where(and(listedSql, sql`${listings.id} > ${after}`))
            .orderBy(listings.id)
            .limit(LOAD_BATCH);
          next.add(rows.map(entryOf));
          const last = rows[rows.length - 1];
          if (!last || rows.length < LOAD_BATCH) break;
          after = last.id;
        }
        next.sorted();
        const nextSellers = new Map<string, string>();
        const sellerRows = await tx
          .select(sellerColumns)
          .from(agents)
          .where(sql`${agents.id} IN (SELECT ${listings.agentId} FROM ${listings} WHERE ${listedSql})`);
        for (const row of sellerRows) nextSellers.set(share(row.id), row.suffix);
        index = next;
        sellers = nextSellers;
        version = newest;
        loads++;
      },
      { isolationLevel: "repeatable read", accessMode: "read only" },
    );
  }

  /** The listings and sellers changed since `version`, in one snapshot; everything when too far behind. */
  async function catchUp(): Promise<void> {
    if (version < 0) return load();
    const done = await db.transaction(
      async (tx) => {
        const { newest, oldest } = await spanOf(tx);
        // Changes between ours and the oldest kept were pruned.
        if (newest < version || oldest > version + 1) return false;
        if (newest === version) return true;
        const changes = await tx
          .selectDistinct({ listingId: browseChanges.listingId, agentId: browseChanges.agentId })
          .from(browseChanges)
          .where(sql`${browseChanges.version} > ${version}`);
        const listingIds = changes.flatMap((change) => (change.listingId ? [change.listingId] : []));
        if (listingIds.length > RELOAD_ABOVE) return false;
        const rows =
          listingIds.length === 0
            ? []
            : await tx
                .select(listingColumns)
                .from(listings)
                .where(and(inArray(listings.id, listingIds), listedSql));
        const sellerIds = new Set(changes.flatMap((change) => (change.agentId ? [change.agentId] : [])));
        for (const row of rows) if (!sellers.has(row.agentId)) sellerIds.add(row.agentId);
        await readSellers(tx, [...sellerIds]);
        const updates = new Map<string, ListingEntry | undefined>(listingIds.map((id) => [id, undefined]));
        for (const row of rows) updates.set(row.id, entryOf(row));
        index.update(updates);
        version = newest;
        return true;
      },
      { isolationLevel: "repeatable read", accessMode: "read only" },
    );
    if (!done) await load();
  }

  /** One read of Postgres at a time; a page that needs it waits for the one under way. */
  function read(): Promise<void> {
    reading ??= catchUp().finally(() => {
      reading = undefined;
    });
    return reading;
  }

  return {
    /** The index as of the last read of Postgres. */
    get index() {
      return index;
    },
    /** How many times everything was loaded (once at the first page, again only when too far behind). */
    get loads() {
      return loads;
    },
    /** The seller's part of a card, as the SQL page writes it. */
    sellerSuffix(agentId: string): string {
      const suffix = sellers.get(agentId);
      if (suffix === undefined) throw new Error(`listing index: no seller ${agentId}`);
      return suffix;
    },
    /**
     * The round trip of each page: the newest change (the index then catches up to it) and, for a
     * keyword, its prefix tsquery as Postgres parses it (null without one).
     */
    async check(tsquery: string | undefined): Promise<{ terms: string | null }> {
      const { rows } = await db.$client.query<{ version: string | null; terms: string | null }>(CHECK, [
        tsquery ?? null,
      ]);
      const row = rows[0] as { version: string | null; terms: string | null };
      const newest = Number(row.version ?? 0);
      while (version < newest) await read();
      return { terms: row.terms };
    },
  };
}

/** Forgets the changes but the newest `kept`: a process that had not read them loads everything again. */
export function pruneBrowseChanges(db: Database, kept = BROWSE_CHANGES_KEPT): Promise<void> {
  return keepNewestChanges(db, browseChanges, kept);
}

export type ListingIndexSync = ReturnType<typeof listingIndexSync>;
