import { and, asc, desc, eq, gt, inArray, lte, or, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Database, DbTransaction } from "../../db/client.ts";
import { agents, listings, offerMoves, offers } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { type NewNotification, type NotificationKind, notify } from "../../notifications/notify.ts";
import type { Agent, AgentRef } from "../agents/agent-summary.ts";
import { keysetPage, olderThanCursor, timestampPosition } from "../shared/cursor.ts";
import { badRequest, ConflictError, conflict, forbidden, notFound } from "../shared/errors.ts";
import { isUuid } from "../shared/ids.ts";
import { formatUsdc } from "../shared/money.ts";
import {
  expiryOf,
  isClosed,
  LIVE_OFFER_STATUSES,
  type OfferAction,
  type OfferMove,
  type OfferParty,
  type OfferRefusal,
  type OfferStatus,
  offerMove,
  turnOf,
} from "./offer-state.ts";

/*
 * Offers on negotiable FIXED listings (API.md, "Negotiation"; the rules in offer-state.ts): a buyer
 * offers a price, the two sides counter in turn, one accepts, and the buyer buys at the agreed
 * price (purchases.ts). Every move is a row of app.offer_moves and a notification of the other
 * party, written in the transaction that moves the offer, which holds the offer's row locked: two
 * moves at once are taken one after the other, and the second is judged on what the first left.
 * An offer past its expiry is EXPIRED: a move on it finds it so (and records it), reads show it so,
 * and the keeper records the rest.
 */

type OfferRow = typeof offers.$inferSelect;

export interface OfferMoveView {
  by: OfferParty | null;
  action: OfferAction;
  price_wei: string;
  price_usdc: string;
  message: string | null;
  at: string;
}

export interface OfferView {
  id: string;
  listing_id: string;
  listing_title: string;
  listing_price_wei: string;
  buyer: AgentRef;
  seller: AgentRef;
  price_wei: string;
  price_usdc: string;
  deadline_hours: number;
  status: OfferStatus;
  /** Whose move it is (counter, accept or decline); null once accepted or closed. */
  turn: OfferParty | null;
  expires_at: string | null;
  transaction_id: string | null;
  created_at: string;
  updated_at: string;
  moves: OfferMoveView[];
}

export interface MakeOfferInput {
  listingId: string;
  priceWei: bigint;
  deadlineHours: number;
  message?: string;
}

export interface OfferListInput {
  limit: number;
  cursor?: string;
}

/** What the move of each kind is recorded as, and the notification it sends the other party. */
const MOVE_RECORDS: Record<Exclude<OfferMove, "purchase">, { action: OfferAction; kind: NotificationKind }> = {
  counter: { action: "countered", kind: "offer.countered" },
  accept: { action: "accepted", kind: "offer.accepted" },
  decline: { action: "declined", kind: "offer.declined" },
  withdraw: { action: "withdrawn", kind: "offer.withdrawn" },
};

/** The refusal of a move, in the API's words. */
function refusalError(refusal: OfferRefusal, offer: OfferRow) {
  const details = { status: offer.status, turn: turnOf(offer.status) };
  switch (refusal) {
    case "not_your_turn":
      return new ConflictError("It is the other party's turn on this offer", details, "offer_not_your_turn");
    case "buyer_only":
      return forbidden("Only the buyer may do this with an offer");
    case "not_accepted":
      return new ConflictError("This offer has not been accepted", details, "offer_not_accepted");
    case "closed":
      return new ConflictError(
        offer.status === "ACCEPTED"
          ? "This offer is accepted: the buyer buys it or withdraws it"
          : `This offer is ${offer.status}`,
        details,
        "offer_closed",
      );
  }
}

const buyerAgent = alias(agents, "offer_buyer");
const sellerAgent = alias(agents, "offer_seller");

/** The status an offer shows at `now`: a live one past its expiry is EXPIRED. */
function statusAt(offer: Pick<OfferRow, "status" | "expiresAt">, now: Date): OfferStatus {
  return offer.expiresAt && offer.expiresAt <= now && !isClosed(offer.status) ? "EXPIRED" : offer.status;
}

/**
 * The buyer's ACCEPTED offer on `listingId` that a purchase names: 404 for no such offer; 409 for
 * another buyer's, another listing's, or one not ACCEPTED (or past its time) now.
 */
export async function acceptedOfferFor(
  db: Pick<Database, "select">,
  offerId: string,
  buyerId: string,
  listingId: string,
): Promise<OfferRow> {
  if (!isUuid(offerId)) throw notFound("Offer");
  const [offer] = await db.select().from(offers).where(eq(offers.id, offerId));
  if (!offer) throw notFound("Offer");
  const details = { offer_id: offer.id, status: statusAt(offer, new Date()), transaction_id: offer.transactionId };
  if (offer.buyerAgentId !== buyerId)
    throw new ConflictError("This offer is another buyer's", details, "offer_mismatch");
  if (offer.listingId !== listingId)
    throw new ConflictError("This offer is on another listing", details, "offer_mismatch");
  if (details.status !== "ACCEPTED") {
    throw new ConflictError(
      details.status === "PURCHASED"
        ? "This offer has been bought already"
        : `This offer is ${details.status}: only an ACCEPTED offer is bought`,
      details,
      "offer_not_accepted",
    );
  }
  return offer;
}

/**
 * Marks the ACCEPTED offer bought by the purchase `transactionId`, in the database transaction that
 * records the purchase (before anything is sent on chain): of two purchases of one offer at once,
 * the second finds it bought and is refused (409), so its escrow is never funded.
 */
export async function recordOfferPurchase(
  tx: Pick<Database, "update" | "insert">,
  offer: OfferRow,
  transactionId: string,
): Promise<void> {
  const [bought] = await tx
    .update(offers)
    .set({ status: "PURCHASED", transactionId, expiresAt: null, updatedAt: sql`now()` })
    .where(and(eq(offers.id, offer.id), eq(offers.status, "ACCEPTED"), gt(offers.expiresAt, sql`now()`)))
    .returning({ id: offers.id });
  if (!bought) {
    throw new ConflictError(
      "This offer was just bought, withdrawn or expired",
      { offer_id: offer.id },
      "offer_not_accepted",
    );
  }
  await tx.insert(offerMoves).values({
    offerId: offer.id,
    agentId: offer.buyerAgentId,
    action: "purchased",
    priceWei: offer.priceWei,
  });
}

export function offerUseCases(deps: Pick<Deps, "db">) {
  const { db } = deps;

  /** Offers with their listing and both parties' names, newest first, as `reader` sees them. */
  function selectOffers(where: SQL | undefined, limit: number, reader: Pick<Database, "select"> = db) {
    return reader
      .select({
        offer: offers,
        listingTitle: listings.title,
        listingPriceWei: listings.priceWei,
        buyerName: buyerAgent.name,
        sellerName: sellerAgent.name,
        position: timestampPosition(offers.createdAt),
      })
      .from(offers)
      .innerJoin(listings, eq(listings.id, offers.listingId))
      .innerJoin(buyerAgent, eq(buyerAgent.id, offers.buyerAgentId))
      .innerJoin(sellerAgent, eq(sellerAgent.id, offers.sellerAgentId))
      .where(where)
      .orderBy(desc(offers.createdAt), desc(offers.id))
      .limit(limit);
  }
  type SelectedOffer = Awaited<ReturnType<typeof selectOffers>>[number];

  /** The answers of `rows`, each with its moves in order (read in one statement). */
  async function views(rows: SelectedOffer[], reader: Pick<Database, "select"> = db): Promise<OfferView[]> {
    if (rows.length === 0) return [];
    const moves = await reader
      .select()
      .from(offerMoves)
      .where(
        inArray(
          offerMoves.offerId,
          rows.map((row) => row.offer.id),
        ),
      )
      .orderBy(asc(offerMoves.createdAt), asc(offerMoves.id));
    const now = new Date();
    return rows.map((row) => {
      const { offer } = row;
      const status = statusAt(offer, now);
      const partyOf = (agentId: string | null): OfferParty | null =>
        agentId === offer.buyerAgentId ? "buyer" : agentId === offer.sellerAgentId ? "seller" : null;
      return {
        id: offer.id,
        listing_id: offer.listingId,
        listing_title: row.listingTitle,
        listing_price_wei: row.listingPriceWei,
        buyer: { id: offer.buyerAgentId, name: row.buyerName },
        seller: { id: offer.sellerAgentId, name: row.sellerName },
        price_wei: offer.priceWei,
        price_usdc: formatUsdc(offer.priceWei),
        deadline_hours: offer.deadlineHours,
        status,
        turn: turnOf(status),
        expires_at: isClosed(status) ? null : (offer.expiresAt?.toISOString() ?? null),
        transaction_id: offer.transactionId,
        created_at: offer.createdAt.toISOString(),
        updated_at: offer.updatedAt.toISOString(),
        moves: moves
          .filter((move) => move.offerId === offer.id)
          .map((move) => ({
            by: partyOf(move.agentId),
            action: move.action,
            price_wei: move.priceWei,
            price_usdc: formatUsdc(move.priceWei),
            message: move.message,
            at: move.createdAt.toISOString(),
          })),
      };
    });
  }

  /** One offer's answer, as `reader` sees it (a transaction sees its own writes). */
  async function viewOf(id: string, reader: Pick<Database, "select"> = db): Promise<OfferView> {
    const [row] = await selectOffers(eq(offers.id, id), 1, reader);
    if (!row) throw notFound("Offer");
    const [view] = await views([row], reader);
    return view as OfferView;
  }

  /** A notification of an offer's move to `to`, from the party that made it. */
  function offerNotice(
    kind: NotificationKind,
    to: string,
    offer: OfferRow,
    listingTitle: string,
    from: AgentRef | null,
    message?: string,
  ): NewNotification {
    return {
      agentId: to,
      kind,
      dedupeKey: `offer:${offer.id}:${offer.status}:${offer.updatedAt.toISOString()}`,
      payload: {
        offer_id: offer.id,
        listing_id: offer.listingId,
        listing_title: listingTitle,
        price_wei: offer.priceWei,
        price_usdc: formatUsdc(offer.priceWei),
        status: offer.status,
        ...(from && { from }),
        ...(message && { message: message.slice(0, 200) }),
      },
    };
  }

  /** Records the expiry of `expired` (live offers past their time): a move each, both parties told. */
  async function recordExpiries(tx: DbTransaction, expired: OfferRow[]): Promise<void> {
    if (expired.length === 0) return;
    await tx.insert(offerMoves).values(
      expired.map((offer) => ({
        offerId: offer.id,
        agentId: null,
        action: "expired" as const,
        priceWei: offer.priceWei,
      })),
    );
    const titles = new Map(
      (
        await tx
          .select({ id: listings.id, title: listings.title })
          .from(listings)
          .where(
            inArray(
              listings.id,
              expired.map((offer) => offer.listingId),
            ),
          )
      ).map((row) => [row.id, row.title]),
    );
    await notify(
      tx,
      expired.flatMap((offer) =>
        [offer.buyerAgentId, offer.sellerAgentId].map((agentId) =>
          offerNotice("offer.expired", agentId, offer, titles.get(offer.listingId) ?? "", null),
        ),
      ),
    );
  }

  /** Expires the live offers of `where` past their time, in `tx`; answers them. */
  async function expire(tx: DbTransaction, where: SQL | undefined): Promise<OfferRow[]> {
    const expired = await tx
      .update(offers)
      .set({ status: "EXPIRED", expiresAt: null, updatedAt: sql`now()` })
      .where(and(lte(offers.expiresAt, sql`now()`), inArray(offers.status, [...LIVE_OFFER_STATUSES]), where))
      .returning();
    await recordExpiries(tx, expired);
    return expired;
  }

  /** The buyer's offer on a negotiable FIXED listing: OPEN, the seller's turn; the seller is told. */
  async function make(buyer: Agent, input: MakeOfferInput): Promise<OfferView> {
    if (!isUuid(input.listingId)) throw notFound("Listing");
    const [found] = await db
      .select({ listing: listings, seller: { id: agents.id, isActive: agents.isActive, isPaused: agents.isPaused } })
      .from(listings)
      .innerJoin(agents, eq(agents.id, listings.agentId))
      .where(eq(listings.id, input.listingId));
    if (!found) throw notFound("Listing");
    const { listing, seller } = found;
    if (seller.id === buyer.id) throw badRequest("An agent cannot make an offer on its own listing");
    if (listing.listingType !== "FIXED") {
      throw conflict("Offers are made on FIXED listings; a BOUNTY takes claims or proposals");
    }
    if (!listing.isNegotiable) throw conflict("This listing is not negotiable: buy it at its price");
    if (!listing.isActive) throw conflict("This listing is not active");
    if (!seller.isActive || seller.isPaused) throw conflict("The seller is not taking orders now");

    return db.transaction(async (tx) => {
      // A live offer of this buyer past its time no longer holds its place.
      await expire(tx, and(eq(offers.listingId, listing.id), eq(offers.buyerAgentId, buyer.id)));
      const now = new Date();
      const [offer] = await tx
        .insert(offers)
        .values({
          listingId: listing.id,
          buyerAgentId: buyer.id,
          sellerAgentId: seller.id,
          priceWei: input.priceWei.toString(),
          deadlineHours: input.deadlineHours,
          status: "OPEN",
          expiresAt: expiryOf("OPEN", now),
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing()
        .returning();
      if (!offer) {
        throw new ConflictError(
          "You already have a live offer on this listing: counter, withdraw or buy it",
          undefined,
          "offer_exists",
        );
      }
      await tx.insert(offerMoves).values({
        offerId: offer.id,
        agentId: buyer.id,
        action: "made",
        priceWei: offer.priceWei,
        message: input.message ?? null,
        createdAt: now,
      });
      await notify(tx, [
        offerNotice(
          "offer.received",
          seller.id,
          offer,
          listing.title,
          { id: buyer.id, name: buyer.name },
          input.message,
        ),
      ]);
      return viewOf(offer.id, tx);
    });
  }

  /**
   * The move of `agent` on the offer `offerId`: counter (with a price), accept, decline or
   * withdraw. 404 for no such offer, 403 for an agent that is not a party (or a seller
   * withdrawing), 409 out of turn or on an offer that no longer allows it (an expired one too).
   */
  async function move(
    agent: Agent,
    offerId: string,
    kind: Exclude<OfferMove, "purchase">,
    input: { priceWei?: bigint; message?: string } = {},
  ): Promise<OfferView> {
    if (!isUuid(offerId)) throw notFound("Offer");
    const outcome = await db.transaction(async (tx) => {
      const [offer] = await tx.select().from(offers).where(eq(offers.id, offerId)).for("update");
      if (!offer) throw notFound("Offer");
      const party: OfferParty | undefined =
        offer.buyerAgentId === agent.id ? "buyer" : offer.sellerAgentId === agent.id ? "seller" : undefined;
      if (!party) throw forbidden("This offer is between other agents");
      if (statusAt(offer, new Date()) === "EXPIRED" && !isClosed(offer.status)) {
        const [expired] = await expire(tx, eq(offers.id, offer.id));
        // Recorded (and committed) before the refusal is answered.
        return { refused: refusalError("closed", expired ?? offer) };
      }
      const next = offerMove(offer.status, kind, party);
      if (!next.ok) throw refusalError(next.refusal, offer);
      const now = new Date();
      const priceWei = kind === "counter" && input.priceWei !== undefined ? input.priceWei.toString() : offer.priceWei;
      const [moved] = await tx
        .update(offers)
        .set({ status: next.status, priceWei, expiresAt: expiryOf(next.status, now), updatedAt: now })
        .where(eq(offers.id, offer.id))
        .returning();
      if (!moved) throw notFound("Offer");
      const record = MOVE_RECORDS[kind];
      await tx.insert(offerMoves).values({
        offerId: offer.id,
        agentId: agent.id,
        action: record.action,
        priceWei,
        message: input.message ?? null,
        createdAt: now,
      });
      // The answer, read in this transaction, names the listing the notification names too.
      const view = await viewOf(offer.id, tx);
      const other = party === "buyer" ? offer.sellerAgentId : offer.buyerAgentId;
      await notify(tx, [
        offerNotice(record.kind, other, moved, view.listing_title, { id: agent.id, name: agent.name }, input.message),
      ]);
      return { view };
    });
    if ("refused" in outcome) throw outcome.refused;
    return outcome.view;
  }

  return {
    make,
    move,

    /** One offer, for its buyer or seller (403 for anyone else). */
    async get(agent: Agent, offerId: string): Promise<OfferView> {
      if (!isUuid(offerId)) throw notFound("Offer");
      const view = await viewOf(offerId);
      if (view.buyer.id !== agent.id && view.seller.id !== agent.id)
        throw forbidden("This offer is between other agents");
      return view;
    },

    /** The offers on a listing: all of them for its seller, the caller's own for anyone else. */
    async forListing(
      agent: Agent,
      listingId: string,
      page: OfferListInput,
    ): Promise<{ offers: OfferView[]; nextCursor: string | null }> {
      if (!isUuid(listingId)) throw notFound("Listing");
      const [listing] = await db.select({ agentId: listings.agentId }).from(listings).where(eq(listings.id, listingId));
      if (!listing) throw notFound("Listing");
      const whose = listing.agentId === agent.id ? undefined : eq(offers.buyerAgentId, agent.id);
      const rows = await selectOffers(
        and(eq(offers.listingId, listingId), whose, olderThanCursor(offers.createdAt, offers.id, page.cursor)),
        page.limit + 1,
      );
      const { page: shown, nextCursor } = keysetPage(rows, page.limit, (row) => ({
        at: row.position,
        id: row.offer.id,
      }));
      return { offers: await views(shown), nextCursor };
    },

    /** The caller's offers as buyer or as seller (both without `role`), optionally of one status. */
    async mine(
      agent: Agent,
      filter: OfferListInput & { role?: OfferParty; status?: OfferStatus },
    ): Promise<{ offers: OfferView[]; nextCursor: string | null }> {
      const asBuyer = eq(offers.buyerAgentId, agent.id);
      const asSeller = eq(offers.sellerAgentId, agent.id);
      const whose = filter.role === "buyer" ? asBuyer : filter.role === "seller" ? asSeller : or(asBuyer, asSeller);
      // A status as reads show it: a live offer past its time is EXPIRED, not what its row still says.
      const byStatus =
        filter.status === undefined
          ? undefined
          : filter.status === "EXPIRED"
            ? sql`(${offers.status} = 'EXPIRED' OR ${offers.expiresAt} <= now())`
            : isClosed(filter.status)
              ? eq(offers.status, filter.status)
              : sql`(${offers.status} = ${filter.status} AND ${offers.expiresAt} > now())`;
      const rows = await selectOffers(
        and(whose, byStatus, olderThanCursor(offers.createdAt, offers.id, filter.cursor)),
        filter.limit + 1,
      );
      const { page: shown, nextCursor } = keysetPage(rows, filter.limit, (row) => ({
        at: row.position,
        id: row.offer.id,
      }));
      return { offers: await views(shown), nextCursor };
    },

    /** Records every live offer past its time as EXPIRED, both parties told (the keeper's job); answers how many. */
    async expireDue(): Promise<number> {
      return db.transaction(async (tx) => (await expire(tx, undefined)).length);
    },
  };
}

export type OfferUseCases = ReturnType<typeof offerUseCases>;
