import { type Context, ponder } from "ponder:registry";
import { accountStats, credit, escrow, escrowEvent, escrowSettings, escrowTotals, txEscrow } from "ponder:schema";
import type { Hex } from "viem";
import {
  type AccountDelta,
  accountDeltasOnAssigned,
  accountDeltasOnDisputed,
  accountDeltasOnFunded,
  accountDeltasOnRefunded,
  accountDeltasOnReleased,
  accountDeltasOnResolved,
  addDelta,
  type Delta,
  type EscrowEventKind,
  type EventData,
  eventRow,
  fundedEscrowRow,
  type LogMeta,
  settlementStep,
  type TotalFigures,
  totalsDelta,
  withEveryParty,
  ZERO_ACCOUNT_FIGURES,
  ZERO_TOTAL_FIGURES,
} from "../lib/escrow-mapping.ts";

/*
 * AgentEscrow logs → chain.escrow (current state), chain.escrow_event (timeline), account_stats,
 * escrow_totals, credit and escrow_settings. Every rule lives in lib/escrow-mapping.ts.
 */

type EscrowContext = Context<"AgentEscrow:Funded">;

/** The fields of a Ponder log event that place it in the chain. */
interface LoggedEvent {
  id: string;
  transaction: { hash: Hex; from: Hex };
  log: { logIndex: number };
  block: { number: bigint; timestamp: bigint };
}

function metaOf(event: LoggedEvent): LogMeta {
  return {
    id: event.id,
    txHash: event.transaction.hash,
    txFrom: event.transaction.from,
    logIndex: event.log.logIndex,
    blockNumber: event.block.number,
    blockTimestamp: event.block.timestamp,
  };
}

async function recordEvent(context: EscrowContext, kind: EscrowEventKind, data: EventData, meta: LogMeta) {
  await context.db.insert(escrowEvent).values(eventRow(context.chain.id, kind, data, meta));
}

/** Adds an escrow event's deltas to its accounts, and marks every one of `parties` with the event. */
async function addToAccounts(context: EscrowContext, deltas: AccountDelta[], parties: Hex[], meta: LogMeta) {
  const marks = { updatedBlock: meta.blockNumber, lastEvent: meta.id };
  for (const { address, delta } of withEveryParty(deltas, parties)) {
    await context.db
      .insert(accountStats)
      .values({ chainId: context.chain.id, address, ...addDelta(ZERO_ACCOUNT_FIGURES, delta), ...marks })
      .onConflictDoUpdate((row) => ({ ...addDelta(row, delta), ...marks }));
  }
}

async function addToTotals(context: EscrowContext, delta: Delta<TotalFigures>, block: bigint) {
  await context.db
    .insert(escrowTotals)
    .values({ chainId: context.chain.id, ...addDelta(ZERO_TOTAL_FIGURES, delta), updatedBlock: block })
    .onConflictDoUpdate((row) => ({ ...addDelta(row, delta), updatedBlock: block }));
}

/** The escrow a log refers to. Every escrow log follows its Funded log, so a miss is a bug. */
async function escrowRow(context: EscrowContext, id: Hex) {
  const row = await context.db.find(escrow, { chainId: context.chain.id, id: id.toLowerCase() as Hex });
  if (!row) throw new Error(`escrow ${id} has a log but no Funded log before it`);
  return row;
}

/** Remembers which escrow this transaction settled, for a Credited log that may follow. */
async function noteSettlement(context: EscrowContext, id: Hex, txHash: Hex) {
  await context.db
    .insert(txEscrow)
    .values({ chainId: context.chain.id, txHash, escrowId: id })
    .onConflictDoUpdate({ escrowId: id });
}

ponder.on("AgentEscrow:Funded", async ({ event, context }) => {
  const meta = metaOf(event);
  const row = fundedEscrowRow(context.chain.id, event.args, meta);
  await context.db.insert(escrow).values(row);
  await recordEvent(
    context,
    "FUNDED",
    { escrowId: row.id, actor: row.buyer, amount: row.amount, seller: row.seller, fee: null },
    meta,
  );
  await addToAccounts(context, accountDeltasOnFunded(row), [row.buyer, row.seller], meta);
  await addToTotals(context, totalsDelta.funded(row.amount), meta.blockNumber);
});

ponder.on("AgentEscrow:SellerAssigned", async ({ event, context }) => {
  const meta = metaOf(event);
  const before = await escrowRow(context, event.args.escrowId);
  const seller = event.args.seller.toLowerCase() as Hex;
  await context.db.update(escrow, { chainId: context.chain.id, id: before.id }).set({
    seller,
    deadline: BigInt(event.args.deadline),
    assignedTxHash: meta.txHash,
    assignedBlock: meta.blockNumber,
    updatedBlock: meta.blockNumber,
  });
  await recordEvent(context, "SELLER_ASSIGNED", { escrowId: before.id, actor: meta.txFrom, seller }, meta);
  await addToAccounts(
    context,
    accountDeltasOnAssigned(before.seller, seller),
    [before.buyer, before.seller, seller],
    meta,
  );
});

ponder.on("AgentEscrow:Delivered", async ({ event, context }) => {
  const meta = metaOf(event);
  const before = await escrowRow(context, event.args.escrowId);
  await context.db.update(escrow, { chainId: context.chain.id, id: before.id }).set({
    status: "DELIVERED",
    deliveredAt: meta.blockTimestamp,
    deliverableHash: event.args.deliverableHash,
    deliveredTxHash: meta.txHash,
    deliveredBlock: meta.blockNumber,
    updatedBlock: meta.blockNumber,
  });
  await recordEvent(
    context,
    "DELIVERED",
    { escrowId: before.id, actor: before.seller, dataHash: event.args.deliverableHash },
    meta,
  );
  await addToAccounts(context, [], [before.buyer, before.seller], meta);
});

ponder.on("AgentEscrow:Disputed", async ({ event, context }) => {
  const meta = metaOf(event);
  const before = await escrowRow(context, event.args.escrowId);
  const disputant = event.args.disputant.toLowerCase() as Hex;
  await context.db.update(escrow, { chainId: context.chain.id, id: before.id }).set({
    status: "DISPUTED",
    disputedBy: disputant,
    disputeReasonHash: event.args.reasonHash,
    disputedAt: meta.blockTimestamp,
    disputedTxHash: meta.txHash,
    disputedBlock: meta.blockNumber,
    updatedBlock: meta.blockNumber,
  });
  await recordEvent(
    context,
    "DISPUTED",
    { escrowId: before.id, actor: disputant, dataHash: event.args.reasonHash },
    meta,
  );
  await addToAccounts(context, accountDeltasOnDisputed(before), [before.buyer, before.seller], meta);
  await addToTotals(context, totalsDelta.disputed(), meta.blockNumber);
});

ponder.on("AgentEscrow:Released", async ({ event, context }) => {
  const meta = metaOf(event);
  const before = await escrowRow(context, event.args.escrowId);
  const { sellerAmount, fee } = event.args;
  const actor = event.args.actor.toLowerCase() as Hex;
  await context.db.update(escrow, { chainId: context.chain.id, id: before.id }).set({
    status: "RELEASED",
    sellerPayout: sellerAmount,
    buyerPayout: 0n,
    feePaid: fee,
    ...settlementStep(actor, meta),
  });
  await recordEvent(context, "RELEASED", { escrowId: before.id, actor, amount: sellerAmount, fee }, meta);
  await addToAccounts(context, accountDeltasOnReleased(before, sellerAmount, fee), [before.buyer, before.seller], meta);
  await addToTotals(context, totalsDelta.released(before.amount, sellerAmount, fee), meta.blockNumber);
  await noteSettlement(context, before.id, meta.txHash);
});

ponder.on("AgentEscrow:Refunded", async ({ event, context }) => {
  const meta = metaOf(event);
  const before = await escrowRow(context, event.args.escrowId);
  const { amount } = event.args;
  const actor = event.args.actor.toLowerCase() as Hex;
  await context.db.update(escrow, { chainId: context.chain.id, id: before.id }).set({
    status: "REFUNDED",
    sellerPayout: 0n,
    buyerPayout: amount,
    feePaid: 0n,
    ...settlementStep(actor, meta),
  });
  await recordEvent(context, "REFUNDED", { escrowId: before.id, actor, amount, buyerAmount: amount }, meta);
  await addToAccounts(context, accountDeltasOnRefunded(before, amount), [before.buyer, before.seller], meta);
  await addToTotals(context, totalsDelta.refunded(before.amount), meta.blockNumber);
  await noteSettlement(context, before.id, meta.txHash);
});

ponder.on("AgentEscrow:Resolved", async ({ event, context }) => {
  const meta = metaOf(event);
  const before = await escrowRow(context, event.args.escrowId);
  const { sellerBps, sellerAmount, buyerAmount, fee } = event.args;
  await context.db.update(escrow, { chainId: context.chain.id, id: before.id }).set({
    status: "RESOLVED",
    resolutionSellerBps: sellerBps,
    sellerPayout: sellerAmount,
    buyerPayout: buyerAmount,
    feePaid: fee,
    ...settlementStep(meta.txFrom, meta),
  });
  await recordEvent(
    context,
    "RESOLVED",
    { escrowId: before.id, actor: meta.txFrom, amount: sellerAmount, buyerAmount, fee, sellerBps },
    meta,
  );
  await addToAccounts(
    context,
    accountDeltasOnResolved(before, sellerAmount, buyerAmount, fee),
    [before.buyer, before.seller],
    meta,
  );
  await addToTotals(context, totalsDelta.resolved(before.amount, sellerAmount, fee), meta.blockNumber);
  await noteSettlement(context, before.id, meta.txHash);
});

ponder.on("AgentEscrow:Credited", async ({ event, context }) => {
  const meta = metaOf(event);
  const { account, amount } = event.args;
  const settled = await context.db.find(txEscrow, { chainId: context.chain.id, txHash: meta.txHash });
  const escrowId = settled?.escrowId ?? null;
  await context.db
    .insert(credit)
    .values({
      chainId: context.chain.id,
      account: account.toLowerCase() as Hex,
      owed: amount,
      totalCredited: amount,
      totalWithdrawn: 0n,
      lastEscrowId: escrowId,
      updatedBlock: meta.blockNumber,
    })
    .onConflictDoUpdate((row) => ({
      owed: row.owed + amount,
      totalCredited: row.totalCredited + amount,
      lastEscrowId: escrowId,
      updatedBlock: meta.blockNumber,
    }));
  await recordEvent(context, "CREDITED", { escrowId, actor: account, amount }, meta);
  await addToTotals(context, totalsDelta.credited(amount), meta.blockNumber);
});

ponder.on("AgentEscrow:CreditWithdrawn", async ({ event, context }) => {
  const meta = metaOf(event);
  const { account, amount } = event.args;
  await context.db.update(credit, { chainId: context.chain.id, account: account.toLowerCase() as Hex }).set((row) => ({
    owed: row.owed - amount,
    totalWithdrawn: row.totalWithdrawn + amount,
    updatedBlock: meta.blockNumber,
  }));
  await recordEvent(context, "CREDIT_WITHDRAWN", { actor: account, amount }, meta);
  await addToTotals(context, totalsDelta.creditWithdrawn(amount), meta.blockNumber);
});

/*
 * Settings. The constructor emits all four, so the row exists from the deployment block on
 * (FeeUpdated comes first).
 */

ponder.on("AgentEscrow:FeeUpdated", async ({ event, context }) => {
  await context.db
    .insert(escrowSettings)
    .values({
      chainId: context.chain.id,
      address: event.log.address.toLowerCase() as Hex,
      feeBps: event.args.feeBps,
      feeRecipient: "0x",
      arbiter: "0x",
      operator: "0x",
      updatedBlock: event.block.number,
    })
    .onConflictDoUpdate({ feeBps: event.args.feeBps, updatedBlock: event.block.number });
});

ponder.on("AgentEscrow:FeeRecipientUpdated", async ({ event, context }) => {
  await context.db
    .update(escrowSettings, { chainId: context.chain.id })
    .set({ feeRecipient: event.args.feeRecipient.toLowerCase() as Hex, updatedBlock: event.block.number });
});

ponder.on("AgentEscrow:ArbiterUpdated", async ({ event, context }) => {
  await context.db
    .update(escrowSettings, { chainId: context.chain.id })
    .set({ arbiter: event.args.arbiter.toLowerCase() as Hex, updatedBlock: event.block.number });
});

ponder.on("AgentEscrow:OperatorUpdated", async ({ event, context }) => {
  await context.db
    .update(escrowSettings, { chainId: context.chain.id })
    .set({ operator: event.args.operator.toLowerCase() as Hex, updatedBlock: event.block.number });
});
