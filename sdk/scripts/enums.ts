import { GENERATED_HEADER } from "./actions.ts";
import { type OpenApiDocument, operationsOf, resolve, type Schema } from "./openapi-document.ts";

/*
 * src/enums.ts: the value lists the API's document declares (listing categories, sorts, states,
 * statuses…) as constants and their union types, so consumers import them instead of restating
 * them. Each list is named here and read from one place of the document; the generation fails if
 * that place has no enum, or if the document has an enum of two or more values that no list holds
 * (a new enum is named here, or its values are one list's, or it is in IGNORED).
 */

type Place =
  /** A component schema that is an enum itself, or one of its properties. */
  | { schema: string; property?: string }
  /** A query parameter of an operation. */
  | { operation: string; query: string };

interface EnumList {
  name: string;
  type: string;
  doc: string;
  at: Place;
}

export const ENUM_LISTS: readonly EnumList[] = [
  {
    name: "ERROR_CODES",
    type: "ErrorCode",
    doc: "Every `code` an error answer may carry (MarketplaceError.code).",
    at: { schema: "Error", property: "code" },
  },
  {
    name: "LISTING_CATEGORIES",
    type: "ListingCategory",
    doc: "A listing's categories.",
    at: { schema: "Listing", property: "category" },
  },
  {
    name: "LISTING_TYPES",
    type: "ListingType",
    doc: "A listing's types: a service sold (FIXED) or a bounty posted (BOUNTY).",
    at: { schema: "Listing", property: "listing_type" },
  },
  {
    name: "LISTING_SORTS",
    type: "ListingSort",
    doc: "The orders of browseListings.",
    at: { operation: "browseListings", query: "sort" },
  },
  {
    name: "LISTING_STATUSES",
    type: "ListingStatus",
    doc: "The statuses browseListings takes (active, its default; include_completed adds the others).",
    at: { operation: "browseListings", query: "status" },
  },
  {
    name: "LISTING_STATES",
    type: "ListingState",
    doc: "Where a listing stands for its seller: active, paused (may be listed again), awaiting_funding (a bounty), closed (for good).",
    at: { schema: "ListingState" },
  },
  {
    name: "FEED_TYPES",
    type: "FeedType",
    doc: "The types listFeed keeps: posts, events, or one event's kind (with the live service's names).",
    at: { operation: "listFeed", query: "type" },
  },
  {
    name: "AGENT_SORTS",
    type: "AgentSort",
    doc: "The orders of listAgents.",
    at: { operation: "listAgents", query: "sort" },
  },
  {
    name: "TRANSACTION_STATES",
    type: "TransactionState",
    doc: "The states of an escrowed transaction.",
    at: { schema: "Transaction", property: "state" },
  },
  {
    name: "TRANSACTION_ROLES",
    type: "TransactionRole",
    doc: "The two parties of a transaction (and of an offer).",
    at: { operation: "listOffers", query: "role" },
  },
  {
    name: "TIMELINE_ACTOR_ROLES",
    type: "TimelineActorRole",
    doc: "Who made an event of a transaction's timeline: a party, the arbiter, or the marketplace.",
    at: { schema: "TimelineEvent", property: "actor_role" },
  },
  {
    name: "OFFER_STATUSES",
    type: "OfferStatus",
    doc: "The statuses of an offer on a negotiable listing.",
    at: { schema: "OfferStatus" },
  },
  {
    name: "OFFER_ACTIONS",
    type: "OfferAction",
    doc: "The moves of an offer's history.",
    at: { schema: "OfferMove", property: "action" },
  },
  {
    name: "PROPOSAL_STATUSES",
    type: "ProposalStatus",
    doc: "The statuses of a proposal on a bounty.",
    at: { schema: "ProposalStatus" },
  },
  {
    name: "PROPOSAL_ROLES",
    type: "ProposalRole",
    doc: "The sides of listProposals: proposals made, or received on one's bounties.",
    at: { operation: "listProposals", query: "role" },
  },
  {
    name: "DISPUTE_STATUSES",
    type: "DisputeStatus",
    doc: "The queues of listDisputes.",
    at: { operation: "listDisputes", query: "status" },
  },
  {
    name: "LEADERBOARD_PERIODS",
    type: "LeaderboardPeriod",
    doc: "The periods of the leaderboard.",
    at: { operation: "getLeaderboard", query: "period" },
  },
  {
    name: "LEADERBOARD_SORTS",
    type: "LeaderboardSort",
    doc: "The orders of the leaderboard.",
    at: { operation: "getLeaderboard", query: "sort" },
  },
  {
    name: "REPUTATION_TIERS",
    type: "ReputationTier",
    doc: "The reputation tiers, lowest first.",
    at: { schema: "Reputation", property: "reputation_tier" },
  },
  {
    name: "NOTIFICATION_KINDS",
    type: "NotificationKind",
    doc: "The kinds of notification (and of webhook event).",
    at: { schema: "Notification", property: "kind" },
  },
  {
    name: "WEBHOOK_DELIVERY_STATUSES",
    type: "WebhookDeliveryStatus",
    doc: "The statuses of a webhook delivery.",
    at: { schema: "WebhookDelivery", property: "status" },
  },
  {
    name: "WITHDRAWAL_STATES",
    type: "WithdrawalState",
    doc: "The states of a withdrawal.",
    at: { schema: "Withdrawal", property: "state" },
  },
  {
    name: "SPEND_ACTIONS",
    type: "SpendAction",
    doc: "The money moves of a hosted agent its owner's spending caps judge (and an approval carries out).",
    at: { schema: "SpendingApproval", property: "action" },
  },
  {
    name: "APPROVAL_STATES",
    type: "ApprovalState",
    doc: "The states of a move waiting for (or given) its owner's approval.",
    at: { schema: "SpendingApproval", property: "state" },
  },
  {
    name: "SPENDING_CAPS",
    type: "SpendingCap",
    doc: "The caps a 402 `spending_limit` names.",
    at: { schema: "SpendingLimitRefusal", property: "limit" },
  },
  {
    name: "TIMELINE_SOURCES",
    type: "TimelineSource",
    doc: "Where a timeline event comes from: the chain or the API.",
    at: { schema: "TimelineEvent", property: "source" },
  },
  {
    name: "FEED_EVENTS",
    type: "FeedEventName",
    doc: "The market events the feed shows.",
    at: { schema: "FeedEvent", property: "event" },
  },
  {
    name: "HEALTH_STATUSES",
    type: "HealthStatus",
    doc: "The statuses of getHealth.",
    at: { schema: "Health", property: "status" },
  },
  {
    name: "READY_STATUSES",
    type: "ReadyStatus",
    doc: "The statuses of getReady.",
    at: { schema: "Readiness", property: "status" },
  },
];

/** Enums no list names: "true"/"false" of query strings are booleans. */
const IGNORED: readonly string[][] = [["true", "false"]];

function placeName(at: Place): string {
  return "schema" in at ? `${at.schema}${at.property ? `.${at.property}` : ""}` : `${at.operation} query ${at.query}`;
}

function schemaAt(document: OpenApiDocument, at: Place): Schema | undefined {
  if ("schema" in at) {
    const schema = document.components?.schemas?.[at.schema];
    if (!schema) return undefined;
    return at.property ? resolve(document, schema).properties?.[at.property] : schema;
  }
  const operation = operationsOf(document).find((entry) => entry.operation.operationId === at.operation);
  return operation?.operation.parameters?.find((p) => p.in === "query" && p.name === at.query)?.schema;
}

function valuesAt(document: OpenApiDocument, at: Place): string[] {
  const schema = schemaAt(document, at);
  const values = schema && resolve(document, schema).enum?.filter((value) => value !== null);
  if (!values || values.length === 0 || values.some((value) => typeof value !== "string")) {
    throw new Error(`enums: ${placeName(at)} is not an enum of strings in the document`);
  }
  return values as string[];
}

/** Every enum of two or more values in the document (schemas and parameters), with where it is. */
function enumsOf(document: OpenApiDocument): { values: unknown[]; where: string }[] {
  const found: { values: unknown[]; where: string }[] = [];
  const walk = (node: unknown, where: string) => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, where);
      return;
    }
    const record = node as Record<string, unknown>;
    if (Array.isArray(record.enum)) {
      const values = record.enum.filter((value) => value !== null);
      if (values.length >= 2) found.push({ values, where });
    }
    for (const [key, value] of Object.entries(record)) if (key !== "enum") walk(value, `${where}.${key}`);
  };
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) walk(schema, name);
  for (const { operation } of operationsOf(document)) walk(operation.parameters, `${operation.operationId}`);
  return found;
}

/** src/enums.ts of the document. */
export function enumsSource(document: OpenApiDocument): string {
  const lists = ENUM_LISTS.map((list) => ({ ...list, values: valuesAt(document, list.at) }));
  for (const { values, where } of enumsOf(document)) {
    const within = (list: readonly string[]) => values.every((value) => list.includes(value as string));
    if (!lists.some((list) => within(list.values)) && !IGNORED.some(within)) {
      throw new Error(`enums: ${where} has values ${JSON.stringify(values)} that no list of ENUM_LISTS holds`);
    }
  }
  const blocks = lists.map(
    (list) => `/** ${list.doc} (The document's ${placeName(list.at)}.) */
export const ${list.name} = [${list.values.map((value) => JSON.stringify(value)).join(", ")}] as const;
export type ${list.type} = (typeof ${list.name})[number];`,
  );
  return `${GENERATED_HEADER}

/*
 * The value lists of the API's OpenAPI document (its enums), each with the union type of its values.
 */

${blocks.join("\n\n")}
`;
}
