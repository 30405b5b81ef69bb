/**
 * What the escrow does when USDC refuses to move funds: a blacklisted party (both tokens have a
 * blacklist) and a paused token (Circle's USDC only: MockUSDC cannot be paused).
 *
 * The escrow's promise (IAgentEscrow): a payout the token refuses is credited to its payee instead
 * of reverting, so one refusal never blocks the other parties; `withdrawCredit` pays the payee
 * itself, once the token accepts it. A funding the token refuses reverts whole: no escrow opens.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { keccak256, stringToHex } from "viem";
import { EscrowStatus, escrowIdOf } from "../src/escrow.ts";
import {
  assertTokenRefused,
  authorizeFunding,
  balanceTracker,
  DAY,
  type EscrowFixture,
  fundEscrow,
  loadEscrowFixture,
  mined,
  newEscrowRef,
  now,
  statusOf,
  submitFunding,
  termsAfter,
  USDC,
  USDC_KINDS,
  viem,
} from "./fixtures.ts";

const work = keccak256(stringToHex("deliverable"));
const reason = keccak256(stringToHex("late and wrong"));

/** The token balances of every party that can receive funds, and the escrow's own. */
function trackPayees(f: EscrowFixture) {
  return balanceTracker(f.usdc, {
    buyer: f.addr.buyer,
    seller: f.addr.seller,
    feeRecipient: f.addr.feeRecipient,
    escrow: f.escrow.address,
  });
}

async function fundAndDeliver(f: EscrowFixture, amount: bigint) {
  const { id, terms } = await fundEscrow(f, { amount });
  const receipt = await mined(f.as.seller.write.deliver([id, terms, work]));
  return { id, terms: await termsAfter(f.escrow, id, receipt, terms) };
}

for (const token of USDC_KINDS) {
  describe(`a blacklisted party, on ${token}`, () => {
    it("blacklisted seller: a dispute resolved 60/40 pays the buyer and the fee recipient, credits the seller", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, seller } = f.addr;
      const balances = await trackPayees(f);
      const amount = 33_333_333n;
      const { id, terms } = await fundAndDeliver(f, amount);
      await mined(f.as.buyer.write.dispute([id, terms, reason]));
      await mined(f.usdcAs.owner.write.blacklist([seller]));

      // Seller share 19,999,999; fee 199,999; the buyer's 13,333,334.
      const hash = await f.as.arbiter.write.resolve([id, terms, 6_000]);
      await viem.assertions.emitWithArgs(hash, f.escrow, "Resolved", [id, 6_000, 19_800_000n, 13_333_334n, 199_999n]);
      await viem.assertions.emitWithArgs(hash, f.escrow, "Credited", [seller, 19_800_000n]);
      assert.equal(await statusOf(f, id), EscrowStatus.Resolved);
      await balances.assertChanged({ buyer: -19_999_999n, feeRecipient: 199_999n, escrow: 19_800_000n });

      await assertTokenRefused(f, f.as.stranger.write.withdrawCredit([seller]), {
        reason: "blacklisted",
        account: seller,
      });
      await mined(f.usdcAs.owner.write.unBlacklist([seller]));
      await mined(f.as.stranger.write.withdrawCredit([seller]));
      await balances.assertChanged({ buyer: -19_999_999n, seller: 19_800_000n, feeRecipient: 199_999n });
      assert.equal(await f.escrow.read.totalCredits(), 0n);
      assert.notEqual(buyer, seller);
    });

    it("blacklisted buyer: the token refuses its funding (fund, fundWithAuthorization); no escrow opens", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, seller } = f.addr;
      const balances = await trackPayees(f);
      const amount = 5n * USDC;
      // Approved before the blacklisting (MockUSDC, unlike USDC v2.2, refuses a blacklisted approver).
      await mined(f.usdcAs.buyer.write.approve([f.escrow.address, amount]));
      await mined(f.usdcAs.owner.write.blacklist([buyer]));

      const { ref } = newEscrowRef();
      await assertTokenRefused(f, f.as.buyer.write.fund([ref, seller, amount, (await now()) + DAY, DAY]), {
        reason: "blacklisted",
        account: buyer,
      });
      assert.equal(await statusOf(f, escrowIdOf(buyer, ref)), EscrowStatus.None);

      const auth = await authorizeFunding(f, { terms: { amount } });
      await assertTokenRefused(f, submitFunding(f, auth.terms, auth), { reason: "blacklisted", account: buyer });
      assert.equal(await statusOf(f, auth.id), EscrowStatus.None);
      assert.equal(await f.usdc.read.authorizationState([buyer, auth.nonce]), false);
      await balances.assertChanged({});

      // Nothing was spent: once unblacklisted, the same authorization funds the escrow.
      await mined(f.usdcAs.owner.write.unBlacklist([buyer]));
      await mined(submitFunding(f, auth.terms, auth));
      assert.equal(await statusOf(f, auth.id), EscrowStatus.Funded);
      await balances.assertChanged({ buyer: -amount, escrow: amount });
    });

    it("blacklisted buyer: a refund is credited to the buyer and paid to it once unblacklisted", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, seller } = f.addr;
      const balances = await trackPayees(f);
      const amount = 12n * USDC;
      const { id, terms } = await fundEscrow(f, { amount });
      await mined(f.usdcAs.owner.write.blacklist([buyer]));

      const hash = await f.as.seller.write.refund([id, terms]);
      await viem.assertions.emitWithArgs(hash, f.escrow, "Refunded", [id, seller, amount]);
      await viem.assertions.emitWithArgs(hash, f.escrow, "Credited", [buyer, amount]);
      assert.equal(await statusOf(f, id), EscrowStatus.Refunded);
      assert.equal(await f.escrow.read.creditOf([buyer]), amount);
      await balances.assertChanged({ buyer: -amount, escrow: amount });

      await assertTokenRefused(f, f.as.buyer.write.withdrawCredit([buyer]), { reason: "blacklisted", account: buyer });
      await mined(f.usdcAs.owner.write.unBlacklist([buyer]));
      await viem.assertions.emitWithArgs(f.as.stranger.write.withdrawCredit([buyer]), f.escrow, "CreditWithdrawn", [
        buyer,
        amount,
      ]);
      await balances.assertChanged({});
      assert.equal(await f.escrow.read.creditOf([buyer]), 0n);
    });
  });
}

describe("a paused token (Circle USDC)", () => {
  const token = "Circle USDC";
  const amount = 10n * USDC;
  const fee = 100_000n;

  it("funding is refused while paused (fund, fundWithAuthorization); after unpause both fund", async () => {
    const f = await loadEscrowFixture(token);
    const { buyer, seller } = f.addr;
    const balances = await trackPayees(f);
    // USDC refuses approvals while paused too: the buyer approved before.
    await mined(f.usdcAs.buyer.write.approve([f.escrow.address, amount]));
    await mined(f.usdcAs.owner.write.pause());

    const { ref } = newEscrowRef();
    const deadline = (await now()) + 7 * DAY;
    await assertTokenRefused(f, f.as.buyer.write.fund([ref, seller, amount, deadline, DAY]), { reason: "paused" });
    const auth = await authorizeFunding(f, { terms: { amount } });
    await assertTokenRefused(f, submitFunding(f, auth.terms, auth), { reason: "paused" });
    assert.equal(await statusOf(f, escrowIdOf(buyer, ref)), EscrowStatus.None);
    assert.equal(await statusOf(f, auth.id), EscrowStatus.None);
    await balances.assertChanged({});

    await mined(f.usdcAs.owner.write.unpause());
    await mined(f.as.buyer.write.fund([ref, seller, amount, deadline, DAY]));
    await mined(submitFunding(f, auth.terms, auth));
    assert.equal(await statusOf(f, escrowIdOf(buyer, ref)), EscrowStatus.Funded);
    assert.equal(await statusOf(f, auth.id), EscrowStatus.Funded);
    await balances.assertChanged({ buyer: -2n * amount, escrow: 2n * amount });
  });

  it("a release while paused credits the seller and the fee recipient; after unpause withdrawCredit pays them", async () => {
    const f = await loadEscrowFixture(token);
    const { buyer, seller, feeRecipient } = f.addr;
    const balances = await trackPayees(f);
    const { id, terms } = await fundAndDeliver(f, amount);
    await mined(f.usdcAs.owner.write.pause());

    // The escrow settles (a refused payout never reverts it); the token holds every payout back.
    const hash = await f.as.buyer.write.release([id, terms]);
    await viem.assertions.emitWithArgs(hash, f.escrow, "Released", [id, buyer, amount - fee, fee]);
    await viem.assertions.emitWithArgs(hash, f.escrow, "Credited", [seller, amount - fee]);
    await viem.assertions.emitWithArgs(hash, f.escrow, "Credited", [feeRecipient, fee]);
    assert.equal(await statusOf(f, id), EscrowStatus.Released);
    assert.equal(await f.escrow.read.totalCredits(), amount);
    await balances.assertChanged({ buyer: -amount, escrow: amount });
    await assertTokenRefused(f, f.as.stranger.write.withdrawCredit([seller]), { reason: "paused" });
    await balances.assertChanged({ buyer: -amount, escrow: amount });

    await mined(f.usdcAs.owner.write.unpause());
    await mined(f.as.stranger.write.withdrawCredit([seller]));
    await mined(f.as.stranger.write.withdrawCredit([feeRecipient]));
    await balances.assertChanged({ buyer: -amount, seller: amount - fee, feeRecipient: fee });
    assert.equal(await f.escrow.read.totalCredits(), 0n);
  });

  it("while paused, delivery and disputes go on (no funds move) and a refund is credited to the buyer", async () => {
    const f = await loadEscrowFixture(token);
    const { buyer } = f.addr;
    const balances = await trackPayees(f);
    const disputed = await fundEscrow(f, { amount });
    const refunded = await fundEscrow(f, { amount });
    await mined(f.usdcAs.owner.write.pause());

    const delivered = await termsAfter(
      f.escrow,
      disputed.id,
      await mined(f.as.seller.write.deliver([disputed.id, disputed.terms, work])),
      disputed.terms,
    );
    await mined(f.as.buyer.write.dispute([disputed.id, delivered, reason]));
    assert.equal(await statusOf(f, disputed.id), EscrowStatus.Disputed);
    await viem.assertions.emitWithArgs(f.as.buyer.write.refund([refunded.id, refunded.terms]), f.escrow, "Credited", [
      buyer,
      amount,
    ]);
    assert.equal(await statusOf(f, refunded.id), EscrowStatus.Refunded);
    await balances.assertChanged({ buyer: -2n * amount, escrow: 2n * amount });

    await mined(f.usdcAs.owner.write.unpause());
    await mined(f.as.buyer.write.withdrawCredit([buyer]));
    // The dispute is settled after the pause, and pays out directly.
    await mined(f.as.arbiter.write.resolve([disputed.id, delivered, 0]));
    await balances.assertChanged({});
    assert.equal(await f.escrow.read.totalCredits(), 0n);
  });
});
