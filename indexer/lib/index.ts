/**
 * Public surface of @agent-marketplace/indexer for its readers (the API, tests, benchmarks): the
 * names of the views in schema "chain", the values of their status and kind columns, how to
 * rebuild an escrow's terms from its row, and the indexer's checkpoint.
 */
export * from "./checkpoint.ts";
export {
  CONTRACT_STATUS,
  ESCROW_EVENT_KINDS,
  ESCROW_STATES,
  type EscrowEventKind,
  type EscrowState,
  type EscrowTermsRow,
  isTerminal,
  stateOfContractStatus,
  termsOf,
  uuidOfEscrowId,
  uuidOfFundingRef,
  ZERO_ADDRESS,
} from "./escrow-mapping.ts";
export { CHAIN_NAMES, type IndexerTarget, resolveIndexerTarget } from "./target.ts";

/** The views the indexer publishes in schema "chain" (see ponder.schema.ts for their columns). */
export const CHAIN_VIEWS = {
  escrow: "escrow",
  escrowEvent: "escrow_event",
  accountStats: "account_stats",
  credit: "credit",
  escrowTotals: "escrow_totals",
  escrowSettings: "escrow_settings",
  erc8004Agent: "erc8004_agent",
  erc8004Feedback: "erc8004_feedback",
} as const;
