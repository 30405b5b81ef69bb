import { type SQL, sql } from "drizzle-orm";
import { zeroAddress } from "viem";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../../db/client.ts";
import { formatUsdc, formatUsdcSql } from "../shared/money.ts";
import {
  ratedDeals,
  reputationTier,
  reputationTierSql,
  successPercent,
  successPercentSql,
  TIER_THRESHOLDS,
  type TrackRecord,
} from "../shared/reputation.ts";
import {
  type ExpectedTerms,
  escrowMatches,
  escrowMatchesSql,
  type IndexedEscrowForMatch,
} from "../transactions/escrow-match.ts";
import { formatRating, formatRatingSql } from "./ratings.ts";

/*
 * The browse's JSON is built by Postgres (listing-browse.ts), with SQL twins of formatUsdc,
 * formatRating and reputationTier: each must answer what its TypeScript original answers, on the
 * suite's Postgres, for values at every edge (rounding, thresholds, amounts past 2^64).
 */
const db = createDatabase(inject("stack").databaseUrl, { max: 1 });
afterAll(() => db.$client.end());

/** Each expression's value, in one statement. */
async function valuesOf(expressions: SQL[]): Promise<string[]> {
  const columns = sql.join(
    expressions.map((expression, i) => sql`${expression} AS ${sql.identifier(`v${i}`)}`),
    sql`, `,
  );
  const { rows } = await db.execute<Record<string, string>>(sql`SELECT ${columns}`);
  const row = rows[0] as Record<string, string>;
  return expressions.map((_, i) => row[`v${i}`] as string);
}

describe("SQL twins of the answers' formats", () => {
  it("formatUsdcSql writes every amount as formatUsdc does", async () => {
    const amounts = [
      "0",
      "1",
      "9999",
      "10000",
      "999999",
      "1000000",
      "1509999",
      "2500000",
      "100000000000",
      "18446744073709551616",
      "123456789012345678901234567890",
    ];
    const shown = await valuesOf(amounts.map((wei) => formatUsdcSql(sql`${wei}::numeric`)));
    expect(shown).toEqual(amounts.map((wei) => formatUsdc(wei)));
  });

  it("formatRatingSql rounds every average as formatRating does", async () => {
    const ratings: Array<[number, number]> = [[0, 0]];
    for (let count = 1; count <= 12; count++) for (let sum = count; sum <= 5 * count; sum++) ratings.push([sum, count]);
    ratings.push([4_999_999, 1_000_000], [2_147_483_647, 429_496_730]);
    const shown = await valuesOf(ratings.map(([sum, count]) => formatRatingSql(sql`${sum}::int`, sql`${count}::int`)));
    expect(shown).toEqual(ratings.map(([sum, count]) => formatRating(sum, count)));
  });

  it("reputationTierSql and successPercentSql answer every record as reputationTier and successPercent do, at each threshold", async () => {
    const completed = new Set([0, 1, 2, 9, 10, 11, 49, 50, 51, 200]);
    const failures = new Set([0, 1, 2, 3, 5, 50]);
    const volumes = new Set([0n, 1n]);
    for (const t of Object.values(TIER_THRESHOLDS)) {
      for (const delta of [-1n, 0n, 1n]) if (t.volumeWei + delta >= 0n) volumes.add(t.volumeWei + delta);
      // The counts where the success rate sits just under, at and over the threshold.
      for (const done of [t.completed, 19, 20, 57, 60]) {
        const failuresAt = Math.floor((done * (1 - t.successRate)) / t.successRate);
        for (const f of [failuresAt - 1, failuresAt, failuresAt + 1]) if (f >= 0) failures.add(f);
        completed.add(done);
      }
    }
    // The failures as refunds, as rulings (completed, no success) and as open disputes.
    const records: TrackRecord[] = [...completed].flatMap((c) =>
      [...failures].flatMap((f) =>
        [...volumes].flatMap((v) => [
          { completed: c, refunded: f, disputed: 0, successes: c, inDispute: 0, volumeWei: v },
          { completed: c + f, refunded: 0, disputed: f, successes: c, inDispute: 0, volumeWei: v },
          { completed: c, refunded: 0, disputed: f, successes: c, inDispute: f, volumeWei: v },
        ]),
      ),
    );
    const tiers = new Set<string>();
    for (let i = 0; i < records.length; i += 400) {
      const batch = records.slice(i, i + 400);
      const asSql = (record: TrackRecord) => ({
        completed: sql`${record.completed}::int`,
        rated: sql`${ratedDeals(record)}::int`,
        successes: sql`${record.successes}::int`,
        volumeWei: sql`${record.volumeWei.toString()}::numeric`,
      });
      const shown = await valuesOf(batch.map((record) => reputationTierSql(asSql(record))));
      expect(shown).toEqual(batch.map((record) => reputationTier(record)));
      for (const tier of shown) tiers.add(tier);
      const percents = await valuesOf(batch.map((record) => successPercentSql(asSql(record))));
      expect(percents.map(Number)).toEqual(batch.map((record) => successPercent(record) ?? 0));
    }
    expect([...tiers].sort()).toEqual(["NEWCOMER", "RELIABLE", "TRUSTED", "VETERAN"]);
  });
});

describe("the rule of a transaction's escrow (escrow-match.ts)", () => {
  it("escrowMatchesSql decides every case as escrowMatches does", async () => {
    const id = "0b7c8f5e-2d1a-4c3b-9e8f-7a6b5c4d3e2f";
    const buyer = "0x00000000000000000000000000000000000000b1";
    const seller = "0x00000000000000000000000000000000000000a1";
    const other = "0x00000000000000000000000000000000000000c1";
    const deadline = new Date(1_800_000_000_000);
    const expectations: ExpectedTerms[] = [false, true].flatMap((isBounty) =>
      [seller.toUpperCase().replace("0X", "0x"), null].map((sellerWallet) => ({
        transactionId: id,
        amountWei: "1000000",
        deadline,
        disputeWindowSeconds: 86_400,
        buyerWallet: buyer.toUpperCase().replace("0X", "0x"),
        sellerWallet,
        isBounty,
      })),
    );
    const base: IndexedEscrowForMatch = {
      uuid: id,
      buyer,
      seller,
      amount: "1000000",
      deadline: "1800000000",
      disputeWindow: 86_400,
      deliveredAt: "0",
      status: "FUNDED",
      isBounty: false,
    };
    const variants: Partial<IndexedEscrowForMatch>[] = [
      {},
      { uuid: "1b7c8f5e-2d1a-4c3b-9e8f-7a6b5c4d3e2f" },
      { buyer: other },
      { seller: other },
      { seller: zeroAddress },
      { amount: "999999" },
      { deadline: "1800000001" },
      { disputeWindow: 0 },
      { isBounty: true },
      { isBounty: true, seller: zeroAddress },
      { isBounty: true, seller: zeroAddress, deadline: "1800000001" },
      { isBounty: true, seller: other },
      { isBounty: true, seller: other, status: "REFUNDED" },
      { isBounty: true, seller: other, status: "DELIVERED", deliveredAt: "1799999999" },
      { isBounty: true, seller: other, status: "RELEASED" },
      { isBounty: true, seller: other, status: "DISPUTED" },
      { isBounty: true, status: "DELIVERED", deliveredAt: "1799999999" },
      { isBounty: true, status: "RELEASED", deliveredAt: "1799999999" },
      { isBounty: true, seller: zeroAddress, status: "REFUNDED" },
    ];
    const cases = expectations.flatMap((expected) =>
      variants.map((variant) => ({ escrow: { ...base, ...variant }, expected })),
    );
    const decided = await valuesOf(
      cases.map(({ escrow: e, expected: x }) =>
        escrowMatchesSql(
          {
            uuid: sql`${e.uuid}::text`,
            buyer: sql`${e.buyer}::text`,
            seller: sql`${e.seller}::text`,
            amount: sql`${e.amount}::numeric`,
            deadline: sql`${e.deadline}::numeric`,
            disputeWindow: sql`${e.disputeWindow}::int`,
            deliveredAt: sql`${e.deliveredAt}::numeric`,
            status: sql`${e.status}::text`,
            isBounty: sql`${e.isBounty}::boolean`,
          },
          {
            transactionId: sql`${x.transactionId}::uuid`,
            amountWei: sql`${x.amountWei}::numeric`,
            deadline: sql`${x.deadline.toISOString()}::timestamptz`,
            disputeWindowSeconds: sql`${x.disputeWindowSeconds}::int`,
            buyerWallet: sql`${x.buyerWallet}::text`,
            sellerWallet: sql`${x.sellerWallet}::text`,
            isBounty: sql`${x.isBounty}::boolean`,
          },
        ),
      ),
    );
    const expected = cases.map(({ escrow, expected: x }) => escrowMatches(escrow, x));
    expect(decided.map((value) => (value as unknown) === true || value === "t")).toEqual(expected);
    // The rule is not trivially true or false: both answers occur, for FIXED and bounty rows alike.
    expect(new Set(expected)).toEqual(new Set([true, false]));
    expect(cases.filter((c, i) => c.expected.isBounty && expected[i]).length).toBeGreaterThan(2);
    expect(cases.filter((c, i) => !c.expected.isBounty && expected[i]).length).toBe(1);
  });
});
