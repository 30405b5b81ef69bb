import { eq, sql } from "drizzle-orm";
import pino from "pino";
import { type Address, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../../test/escrow.ts";
import {
  createListing,
  json,
  newWallet,
  post,
  registerAgent,
  sessionOf,
  type TestApp,
  testApp,
  uniqueWord,
  usdcBalance,
} from "../../../test/harness.ts";
import { agentSpends, notifications, spendingApprovals, transactions } from "../../db/schema.ts";
import { createKeeper } from "../../keeper/keeper.ts";
import { UNSIGNED_SPEND_LIFETIME } from "../wallet/spending-caps.ts";
import { interruptedApprovals } from "./interrupted-approvals.ts";

/*
 * The keeper's repair of approvals a crash interrupted (interrupted-approvals.ts), on the suite's
 * real chain and Postgres. The crashed process is reproduced by the rows it leaves: the approval
 * claimed (approved, decided_at) and its outcome never recorded, with the move sent and mined, or
 * never sent. Signed and mined, it is recorded approved with its transaction and the agent told,
 * never made pending again (so a second approval cannot pay twice); never sent, it waits for its
 * owner again (then approved once, paid once), or fails once expired; within the grace period, or
 * repaired by two keepers at once, it is left alone or repaired once.
 */
const PRICE = USDC;

let t: TestApp;
let owner: { address: Address; session: string };
let seller: { id: string; key: string };

beforeAll(async () => {
  t = await testApp({ rateLimitPerMinute: 100_000 });
  const wallet = newWallet();
  owner = { address: wallet.address, session: await sessionOf(t.app, wallet, t.config.chainId) };
  seller = await registerAgent(t.app, `heal seller ${uniqueWord()}`);
});
afterAll(() => t.close());

const heal = () => interruptedApprovals({ db: t.db, relayer: t.services.relayer }).heal();

const request = (method: string, path: string, credential: string, body?: unknown) =>
  t.app.request(path, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${credential}` },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });

/** A hosted agent of `owner` holding 3 prices, whose buys above half a price wait for approval, and its pending buy. */
async function pendingBuy() {
  const created = await json(
    await post(t.app, "/api/owner/agents", { name: `healed ${uniqueWord()}`, bio: "heals" }, owner.session),
  );
  const agent = {
    id: created.agent.id as string,
    key: created.api_key as string,
    wallet: getAddress(created.agent.wallet_address),
  };
  await post(t.app, "/api/dev/faucet", { address: agent.wallet, usdc_wei: (3n * PRICE).toString() });
  const set = await request("PUT", `/api/owner/agents/${agent.id}/limits`, owner.session, {
    per_purchase_wei: null,
    per_day_wei: null,
    approval_above_wei: (PRICE / 2n).toString(),
  });
  expect(set.status).toBe(200);
  const listing = await createListing(t.app, seller, { title: `Healed ${uniqueWord()}`, price_wei: PRICE.toString() });
  const asked = await request("POST", `/api/listings/${listing.id}/buy`, agent.key, {});
  expect(asked.status, await asked.clone().text()).toBe(202);
  return { agent, approvalId: (await json(asked)).approval.id as string };
}

/** The rows a process leaves that claimed the approval `minutesAgo` and died before recording its outcome. */
async function interruptedAt(approvalId: string, minutesAgo: number) {
  await t.db
    .update(spendingApprovals)
    .set({
      state: "approved",
      result: null,
      completedAt: null,
      decidedAt: sql`now() - ${`${minutesAgo} minutes`}::interval`,
    })
    .where(eq(spendingApprovals.id, approvalId));
  await t.db.execute(sql`DELETE FROM app.notifications WHERE payload->>'approval_id' = ${approvalId}
    AND kind IN ('approval.approved', 'approval.failed')`);
}

const approval = async (id: string) =>
  (await t.db.select().from(spendingApprovals).where(eq(spendingApprovals.id, id)))[0];

const told = async (approvalId: string, kind: string) =>
  (
    await t.db
      .select({ id: notifications.id })
      .from(notifications)
      .where(sql`${notifications.kind} = ${kind} AND ${notifications.payload}->>'approval_id' = ${approvalId}`)
  ).length;

const bought = async (agentId: string) =>
  (await t.db.select({ id: transactions.id }).from(transactions).where(eq(transactions.buyerAgentId, agentId))).length;

describe("approvals a crash interrupted", () => {
  it("sent and mined: recorded approved with its transaction, the agent told once, never pending again", async () => {
    const { agent, approvalId } = await pendingBuy();
    const approved = await request("POST", `/api/owner/approvals/${approvalId}/approve`, owner.session);
    expect(approved.status).toBe(200);
    const transactionId = (await json(approved)).result.transaction_id;
    await interruptedAt(approvalId, 20);

    const [first, second] = await Promise.all([heal(), heal()]);
    const completed = [...(first?.completed ?? []), ...(second?.completed ?? [])];
    expect(completed.filter((id) => id === approvalId)).toHaveLength(1);
    const row = await approval(approvalId);
    expect(row).toMatchObject({ state: "approved", result: { transaction_id: transactionId } });
    expect(row?.result?.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(row?.completedAt).toBeInstanceOf(Date);
    expect(await told(approvalId, "approval.approved")).toBe(1);
    // Approving it again is refused: it was paid once.
    expect((await request("POST", `/api/owner/approvals/${approvalId}/approve`, owner.session)).status).toBe(409);
    expect(await bought(agent.id)).toBe(1);
    expect(await usdcBalance(agent.wallet)).toBe(2n * PRICE);
    expect((await heal()).completed).not.toContain(approvalId);
  });

  it("never sent: pending again for its owner, who approves it once more and pays once", async () => {
    const { agent, approvalId } = await pendingBuy();
    await interruptedAt(approvalId, 20);
    expect((await heal()).reopened).toContain(approvalId);
    expect(await approval(approvalId)).toMatchObject({ state: "pending", decidedAt: null, completedAt: null });
    expect(await bought(agent.id)).toBe(0);

    const approved = await request("POST", `/api/owner/approvals/${approvalId}/approve`, owner.session);
    expect(approved.status, await approved.clone().text()).toBe(200);
    expect(await bought(agent.id)).toBe(1);
    expect(await usdcBalance(agent.wallet)).toBe(2n * PRICE);
  });

  it("never sent and expired since: failed (interrupted), the agent told; nothing moved", async () => {
    const { agent, approvalId } = await pendingBuy();
    await interruptedAt(approvalId, 20);
    await t.db
      .update(spendingApprovals)
      .set({ expiresAt: sql`now() - interval '1 minute'` })
      .where(eq(spendingApprovals.id, approvalId));
    expect((await heal()).failed).toContain(approvalId);
    expect(await approval(approvalId)).toMatchObject({ state: "failed", failure: { code: "interrupted" } });
    expect(await told(approvalId, "approval.failed")).toBe(1);
    expect(await bought(agent.id)).toBe(0);
    expect(await usdcBalance(agent.wallet)).toBe(3n * PRICE);
  });

  it("a spending row not signed yet may still be tied to a send: it waits; once too old for the outbox, the keeper's round reopens it", async () => {
    const { agent, approvalId } = await pendingBuy();
    await interruptedAt(approvalId, 20);
    // The crashed process had reserved the buy's spending (its row, not yet tied to a send).
    const [spend] = await t.db
      .insert(agentSpends)
      .values({ agentId: agent.id, action: "buy", amountWei: PRICE.toString(), approvalId })
      .returning({ id: agentSpends.id });
    const keeper = createKeeper({ db: t.db, config: t.config, ...t.services, logger: pino({ level: "silent" }) });
    const waiting = (await keeper.runOnce()).approvals;
    expect([...waiting.completed, ...waiting.reopened, ...waiting.failed]).not.toContain(approvalId);
    expect(await approval(approvalId)).toMatchObject({ state: "approved", completedAt: null });

    // Older than the outbox ties to a send: nothing was or will be sent.
    await t.db
      .update(agentSpends)
      .set({ createdAt: sql`now() - ${UNSIGNED_SPEND_LIFETIME}::interval - interval '1 minute'` })
      .where(eq(agentSpends.id, spend?.id ?? ""));
    expect((await keeper.runOnce()).approvals.reopened).toContain(approvalId);
    expect(await approval(approvalId)).toMatchObject({ state: "pending", decidedAt: null, completedAt: null });
    expect(await bought(agent.id)).toBe(0);
    expect(await usdcBalance(agent.wallet)).toBe(3n * PRICE);
  });

  it("within the grace period, one may still be carrying out: left alone", async () => {
    const { approvalId } = await pendingBuy();
    await interruptedAt(approvalId, 1);
    const healed = await heal();
    expect([...healed.completed, ...healed.reopened, ...healed.failed]).not.toContain(approvalId);
    expect(await approval(approvalId)).toMatchObject({ state: "approved", completedAt: null });
  });
});
