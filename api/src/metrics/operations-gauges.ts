import { USDC_DECIMALS } from "@agent-marketplace/contracts";
import { ESCROW_STATES } from "@agent-marketplace/indexer";
import { Gauge, Registry } from "prom-client";
import { formatEther, formatUnits } from "viem";
import { type OperationsFigures, OUTBOX_ACCOUNTS, type Part } from "../domain/platform/operations.ts";

/*
 * The series read from Postgres and the chain at each scrape (domain/platform/operations.ts), in
 * a registry of the scrape's own: two scrapes at once never mix their values, and a part that was
 * not read leaves its series out (marketplace_scrape_part_up says which) rather than showing
 * zeros or last scrape's values.
 */

/** Each part of the figures, by its `part` label. */
const PARTS = [
  "escrows",
  "credits",
  "relayer_outbox",
  "relayer_accounts",
  "webhooks",
  "indexer",
  "chain_head",
] as const;

/** The registry of one scrape's figures. */
export function operationsRegistry(figures: OperationsFigures): Registry {
  const registry = new Registry();
  const gauge = <L extends string = never>(name: string, help: string, labelNames: L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers: [registry] });

  const up = gauge(
    "marketplace_scrape_part_up",
    "Whether this scrape read the part (1) or it failed or took longer than 2 s (0): its series are absent then",
    ["part"],
  );
  const duration = gauge(
    "marketplace_scrape_part_duration_seconds",
    "How long this scrape's read of the part took (2 s at most)",
    ["part"],
  );
  const parts: Record<(typeof PARTS)[number], Part<unknown>> = {
    escrows: figures.escrows,
    credits: figures.credits,
    relayer_outbox: figures.outbox,
    relayer_accounts: figures.accounts,
    webhooks: figures.webhooks,
    indexer: figures.indexer,
    chain_head: figures.chainHead,
  };
  for (const name of PARTS) {
    up.set({ part: name }, parts[name].ok ? 1 : 0);
    duration.set({ part: name }, parts[name].seconds);
  }

  const { escrows, credits, outbox, accounts, webhooks, indexer, chainHead } = figures;
  if (escrows.ok) {
    const byState = gauge("marketplace_escrows", "Escrows on chain by state, as indexed (every state present)", [
      "state",
    ]);
    for (const state of ESCROW_STATES) byState.set({ state }, escrows.value[state]);
  }

  if (credits.ok) {
    gauge(
      "marketplace_escrow_credits_owed_usdc",
      "USDC the escrow credited because the token refused the payout (paused, or the payee blacklisted) and has not paid out yet, in USDC (not base units), as indexed",
    ).set(Number(formatUnits(credits.value.owedWei, USDC_DECIMALS)));
    gauge(
      "marketplace_escrow_credited_accounts",
      "Accounts the escrow owes credited payouts (the keeper pays each once the token accepts)",
    ).set(credits.value.accounts);
  }

  if (outbox.ok) {
    const pending = gauge(
      "marketplace_relayer_pending_transactions",
      "Transactions signed and recorded in the outbox without a receipt yet (the relayer's, the arbiter's, hosted wallets' together)",
      ["account"],
    );
    for (const account of OUTBOX_ACCOUNTS) pending.set({ account }, outbox.value.pending[account]);
    const oldest = gauge(
      "marketplace_relayer_oldest_pending_age_seconds",
      "Seconds since the oldest transaction still without a receipt was signed (absent when none is)",
      ["account"],
    );
    for (const [account, seconds] of Object.entries(outbox.value.oldestPendingSeconds))
      oldest.set({ account }, seconds);
    const lastNonce = gauge(
      "marketplace_relayer_last_used_nonce",
      "The highest nonce the outbox has used for the account (absent before its first send)",
      ["account"],
    );
    for (const [account, nonce] of Object.entries(outbox.value.lastNonce)) lastNonce.set({ account }, nonce);
  }

  if (accounts.ok) {
    const nextNonce = gauge(
      "marketplace_relayer_chain_next_nonce",
      'The account\'s next nonce as the node counts it: block="latest" counts mined transactions, block="pending" those in its pool too',
      ["account", "block"],
    );
    const balance = gauge(
      "marketplace_relayer_balance_ether",
      "The account's ETH balance, in ether (it pays the gas of what it sends)",
      ["account"],
    );
    const info = gauge("marketplace_relayer_info", "The service's sending accounts and their addresses (always 1)", [
      "account",
      "address",
    ]);
    for (const [account, onChain] of Object.entries(accounts.value)) {
      nextNonce.set({ account, block: "latest" }, onChain.latestNonce);
      nextNonce.set({ account, block: "pending" }, onChain.pendingNonce);
      balance.set({ account }, Number(formatEther(onChain.balanceWei)));
      info.set({ account, address: onChain.address }, 1);
    }
  }

  if (webhooks.ok) {
    const figures = webhooks.value;
    gauge(
      "marketplace_webhook_deliveries_pending",
      "Webhook deliveries waiting for an attempt (due or not; their endpoint paused or not)",
    ).set(figures.pending);
    gauge(
      "marketplace_webhook_deliveries_due",
      "Webhook deliveries the sender would send now: due, their endpoint neither paused nor backing off",
    ).set(figures.due);
    if (figures.oldestDueSeconds !== undefined) {
      gauge(
        "marketplace_webhook_oldest_due_age_seconds",
        "How long the longest-waiting due webhook delivery has been due (absent when none is)",
      ).set(figures.oldestDueSeconds);
    }
    gauge(
      "marketplace_webhook_deliveries_failed",
      "Webhook deliveries given up (attempts exhausted or the webhook removed), as the table holds them",
    ).set(figures.failed);
    gauge(
      "marketplace_webhook_endpoints_paused",
      "Webhook endpoints paused after too many failures in a row (nothing is sent to them)",
    ).set(figures.pausedEndpoints);
  }

  // A checkpoint of undefined: the indexer has not written one yet (its series stay absent).
  if (indexer.ok && indexer.value !== undefined) {
    gauge("marketplace_indexer_indexed_block", "The last block the indexer has processed").set(Number(indexer.value));
  }
  if (chainHead.ok) {
    gauge("marketplace_chain_head_block", "The chain's newest block, as the API's node answers").set(
      Number(chainHead.value),
    );
  }
  if (indexer.ok && indexer.value !== undefined && chainHead.ok) {
    const lag = chainHead.value > indexer.value ? chainHead.value - indexer.value : 0n;
    gauge("marketplace_indexer_lag_blocks", "Blocks the indexer is behind the chain head").set(Number(lag));
  }
  return registry;
}
