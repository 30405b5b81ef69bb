/**
 * The escrow's flows as a client runs them: funding refs from API uuids, escrow ids derived from the
 * buyer and the ref, terms rebuilt from the escrow's
 * events (as the indexer does), every call made with those terms, and exact token balances at the
 * end of each flow.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { getAddress, keccak256, maxUint256, stringToHex, zeroAddress } from "viem";
import {
  EscrowStatus,
  type EscrowTerms,
  escrowIdOf,
  escrowIdOfTransaction,
  escrowRef,
  fundingNonce,
  hashEscrowTerms,
  uuidOfEscrowRef,
} from "../src/escrow.ts";
import {
  assertStored,
  assertTokenRefused,
  balanceTracker,
  DAY,
  type EscrowFixture,
  FEE_BPS,
  fundEscrow,
  indexTerms,
  loadEscrowFixture,
  mined,
  networkHelpers,
  newEscrowRef,
  now,
  statusOf,
  termsAfter,
  USDC,
  USDC_KINDS,
  viem,
} from "./fixtures.ts";

const { time } = networkHelpers;
const work = keccak256(stringToHex("deliverable v1"));
const reason = keccak256(stringToHex("not what was ordered"));

/** Every party's token balance, plus the escrow's own. */
function trackAll(f: EscrowFixture) {
  const w = f.addr;
  return balanceTracker(f.usdc, {
    buyer: w.buyer,
    seller: w.seller,
    feeRecipient: w.feeRecipient,
    arbiter: w.arbiter,
    operator: w.operator,
    relayer: w.relayer,
    stranger: w.stranger,
    escrow: f.escrow.address,
  });
}

/** The seller delivers; returns the terms with deliveredAt from the Delivered event's block. */
async function deliver(f: EscrowFixture, id: `0x${string}`, terms: EscrowTerms) {
  const hash = await f.as.seller.write.deliver([id, terms, work]);
  await viem.assertions.emitWithArgs(hash, f.escrow, "Delivered", [id, work]);
  const delivered = await termsAfter(f.escrow, id, await mined(hash), terms);
  assert.equal(delivered.deliveredAt, await now());
  return delivered;
}

for (const token of USDC_KINDS) {
  describe(`AgentEscrow flows on ${token}`, () => {
    it("FIXED: buy, deliver, release pays seller amount - fee and the fee recipient the fee", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, seller } = f.addr;
      // Another escrow is open: the escrow's balance is not zero before the flow.
      await fundEscrow(f, { amount: 7n * USDC });
      const balances = await trackAll(f);
      assert.equal(balances.before.escrow, 7n * USDC);

      const uuid = randomUUID();
      const ref = escrowRef(uuid);
      const id = escrowIdOfTransaction(buyer, uuid);
      const amount = 25_123_457n; // 25.123457 USDC: the fee rounds down.
      const fee = 251_234n;
      const deadline = (await now()) + 3 * DAY;
      await mined(f.usdcAs.buyer.write.approve([f.escrow.address, amount]));
      const fundHash = await f.as.buyer.write.fund([ref, seller, amount, deadline, DAY]);
      await viem.assertions.emitWithArgs(fundHash, f.escrow, "Funded", [
        id,
        buyer,
        seller,
        ref,
        amount,
        deadline,
        DAY,
        FEE_BPS,
      ]);
      const funded = await termsAfter(f.escrow, id, await mined(fundHash));
      assert.deepEqual(funded, {
        buyer: buyer,
        seller: seller,
        amount,
        deadline,
        disputeWindow: DAY,
        deliveredAt: 0,
        feeBps: FEE_BPS,
      });
      assert.equal(uuidOfEscrowRef(ref), uuid);
      await assertStored(f, id, EscrowStatus.Funded, funded);
      assert.equal(await f.usdc.read.allowance([buyer, f.escrow.address]), 0n);

      const delivered = await deliver(f, id, funded);
      await assertStored(f, id, EscrowStatus.Delivered, delivered);
      assert.deepEqual(await indexTerms(f.escrow, id), delivered);

      await viem.assertions.emitWithArgs(f.as.buyer.write.release([id, delivered]), f.escrow, "Released", [
        id,
        buyer,
        amount - fee,
        fee,
      ]);
      assert.equal(await statusOf(f, id), EscrowStatus.Released);
      await balances.assertChanged({ buyer: -amount, seller: amount - fee, feeRecipient: fee });
      assert.equal(await f.usdc.read.balanceOf([f.escrow.address]), 7n * USDC);
    });

    it("a third party that funded the buyer's ref first opens its own escrow and does not block the buyer's", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, seller, stranger } = f.addr;
      const { uuid, ref } = newEscrowRef();
      const deadline = (await now()) + 3 * DAY;
      // The stranger read the pending ref and funds it first, with itself as buyer.
      await mined(f.usdcAs.stranger.write.approve([f.escrow.address, 1n]));
      const squatHash = await f.as.stranger.write.fund([ref, seller, 1n, deadline, DAY]);
      const squatId = escrowIdOf(stranger, ref);
      await viem.assertions.emitWithArgs(squatHash, f.escrow, "Funded", [
        squatId,
        stranger,
        seller,
        ref,
        1n,
        deadline,
        DAY,
        FEE_BPS,
      ]);
      const squat = await termsAfter(f.escrow, squatId, await mined(squatHash));

      // The buyer funds the same ref: its escrow lives at escrowIdOfTransaction(buyer, uuid).
      const amount = 9n * USDC;
      const { id, terms } = await fundEscrow(f, { ref, amount, deadline });
      assert.equal(id, escrowIdOfTransaction(buyer, uuid));
      assert.notEqual(id, squatId);
      await assertStored(f, id, EscrowStatus.Funded, terms);
      await assertStored(f, squatId, EscrowStatus.Funded, squat);
      assert.equal(terms.amount, amount);
      assert.equal(squat.amount, 1n);
      // Both map back to the same uuid through their ref; the buyer tells them apart.
      assert.equal(uuidOfEscrowRef(ref), uuid);

      // Each runs its own course: the buyer releases its escrow, the stranger's stays funded.
      const delivered = await deliver(f, id, terms);
      await mined(f.as.buyer.write.release([id, delivered]));
      assert.equal(await statusOf(f, id), EscrowStatus.Released);
      await assertStored(f, squatId, EscrowStatus.Funded, squat);
      // The buyer reusing its own ref is refused; only the buyer can cause that.
      await mined(f.usdcAs.buyer.write.approve([f.escrow.address, amount]));
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.buyer.write.fund([ref, seller, amount, (await now()) + DAY, DAY]),
        f.escrow,
        "Escrow_AlreadyExists",
        [id],
      );
    });

    it("bounty: operator assigns the seller, who delivers; anyone releases after the dispute window", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, seller, operator, relayer } = f.addr;
      const balances = await trackAll(f);
      const amount = 50n * USDC;
      const fee = 500_000n;

      const {
        id,
        terms: bounty,
        receipt,
      } = await fundEscrow(f, { seller: zeroAddress, amount, disputeWindow: 2 * DAY });
      assert.equal(bounty.seller, zeroAddress);
      assert.equal(getAddress(receipt.from), buyer);
      await assertStored(f, id, EscrowStatus.Funded, bounty);
      // No seller yet: nobody can deliver, and the buyer cannot release to nobody.
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.seller.write.deliver([id, bounty, work]),
        f.escrow,
        "Escrow_CallerNotSeller",
        [id, seller],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.buyer.write.release([id, bounty]),
        f.escrow,
        "Escrow_SellerNotAssigned",
        [id],
      );
      // Only the operator or the buyer assigns.
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.relayer.write.assignSeller([id, bounty, seller, bounty.deadline]),
        f.escrow,
        "Escrow_CallerNotBuyerOrOperator",
        [id, relayer],
      );

      const claimDeadline = (await now()) + 2 * DAY;
      const assignHash = await f.as.operator.write.assignSeller([id, bounty, seller, claimDeadline]);
      await viem.assertions.emitWithArgs(assignHash, f.escrow, "SellerAssigned", [id, seller, claimDeadline]);
      const assignReceipt = await mined(assignHash);
      assert.equal(getAddress(assignReceipt.from), operator);
      const assigned = await termsAfter(f.escrow, id, assignReceipt, bounty);
      assert.equal(assigned.seller, seller);
      assert.equal(assigned.deadline, claimDeadline);
      await assertStored(f, id, EscrowStatus.Funded, assigned);

      const delivered = await deliver(f, id, assigned);
      assert.deepEqual(await indexTerms(f.escrow, id), delivered);

      // Within the window only the buyer may release.
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.relayer.write.release([id, delivered]),
        f.escrow,
        "Escrow_ReleaseNotAllowed",
        [id, relayer],
      );
      await time.increaseTo(delivered.deliveredAt + delivered.disputeWindow);
      await viem.assertions.emitWithArgs(f.as.relayer.write.release([id, delivered]), f.escrow, "Released", [
        id,
        relayer,
        amount - fee,
        fee,
      ]);
      assert.equal(await statusOf(f, id), EscrowStatus.Released);
      await balances.assertChanged({ buyer: -amount, seller: amount - fee, feeRecipient: fee });
    });

    it("refund: the buyer cancels before delivery", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer } = f.addr;
      const balances = await trackAll(f);
      const amount = 12n * USDC;
      const { id, terms } = await fundEscrow(f, { amount });
      await balances.assertChanged({ buyer: -amount, escrow: amount });

      await viem.assertions.emitWithArgs(f.as.buyer.write.refund([id, terms]), f.escrow, "Refunded", [
        id,
        buyer,
        amount,
      ]);
      assert.equal(await statusOf(f, id), EscrowStatus.Refunded);
      await balances.assertChanged({});
      // Terminal: no second refund, no delivery.
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.buyer.write.refund([id, terms]),
        f.escrow,
        "Escrow_InvalidStatus",
        [id, EscrowStatus.Refunded],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.seller.write.deliver([id, terms, work]),
        f.escrow,
        "Escrow_InvalidStatus",
        [id, EscrowStatus.Refunded],
      );
    });

    it("refund: after delivery the buyer may not refund", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer } = f.addr;
      const { id, terms } = await fundEscrow(f, { amount: 3n * USDC });
      const delivered = await deliver(f, id, terms);
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.buyer.write.refund([id, delivered]),
        f.escrow,
        "Escrow_RefundNotAllowed",
        [id, buyer],
      );
    });

    it("refund: a stranger returns an undelivered escrow to the buyer once the deadline has passed", async () => {
      const f = await loadEscrowFixture(token);
      const { stranger, seller } = f.addr;
      const balances = await trackAll(f);
      const amount = 8_500_000n;
      const { id, terms } = await fundEscrow(f, { amount, deadline: (await now()) + DAY });

      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.stranger.write.refund([id, terms]),
        f.escrow,
        "Escrow_RefundNotAllowed",
        [id, stranger],
      );
      await time.increaseTo(terms.deadline + 1);
      // Too late to deliver or to dispute.
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.seller.write.deliver([id, terms, work]),
        f.escrow,
        "Escrow_DeadlinePassed",
        [id, terms.deadline],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.seller.write.dispute([id, terms, reason]),
        f.escrow,
        "Escrow_DeadlinePassed",
        [id, terms.deadline],
      );
      assert.notEqual(stranger, seller);
      await viem.assertions.emitWithArgs(f.as.stranger.write.refund([id, terms]), f.escrow, "Refunded", [
        id,
        stranger,
        amount,
      ]);
      await balances.assertChanged({});
    });

    describe("dispute and resolve", () => {
      const amount = 33_333_333n;

      /** Funds, delivers and has the buyer dispute; returns the disputed escrow. */
      async function disputed(f: EscrowFixture) {
        const { buyer } = f.addr;
        const { id, terms } = await fundEscrow(f, { amount });
        const delivered = await deliver(f, id, terms);
        await viem.assertions.emitWithArgs(f.as.buyer.write.dispute([id, delivered, reason]), f.escrow, "Disputed", [
          id,
          buyer,
          reason,
        ]);
        await assertStored(f, id, EscrowStatus.Disputed, delivered);
        return { id, terms: delivered };
      }

      it("60% to the seller: exact seller, fee and buyer amounts", async () => {
        const f = await loadEscrowFixture(token);
        const { stranger } = f.addr;
        const balances = await trackAll(f);
        const { id, terms } = await disputed(f);

        await viem.assertions.revertWithCustomErrorWithArgs(
          f.as.stranger.write.resolve([id, terms, 6_000]),
          f.escrow,
          "Escrow_CallerNotArbiter",
          [stranger],
        );
        await viem.assertions.revertWithCustomErrorWithArgs(
          f.as.arbiter.write.resolve([id, terms, 10_001]),
          f.escrow,
          "Escrow_InvalidSellerBps",
          [10_001],
        );
        // Seller share 19,999,999 (rounded down); fee 1% of it, 199,999; the rest to the buyer.
        await viem.assertions.emitWithArgs(f.as.arbiter.write.resolve([id, terms, 6_000]), f.escrow, "Resolved", [
          id,
          6_000,
          19_800_000n,
          13_333_334n,
          199_999n,
        ]);
        assert.equal(await statusOf(f, id), EscrowStatus.Resolved);
        await balances.assertChanged({ buyer: -19_999_999n, seller: 19_800_000n, feeRecipient: 199_999n });
        // Settled: the buyer cannot release it any more.
        await viem.assertions.revertWithCustomErrorWithArgs(
          f.as.buyer.write.release([id, terms]),
          f.escrow,
          "Escrow_InvalidStatus",
          [id, EscrowStatus.Resolved],
        );
      });

      it("0%: everything back to the buyer, no fee (dispute opened by the seller before delivery)", async () => {
        const f = await loadEscrowFixture(token);
        const { seller } = f.addr;
        const balances = await trackAll(f);
        const { id, terms } = await fundEscrow(f, { amount });
        await viem.assertions.emitWithArgs(f.as.seller.write.dispute([id, terms, reason]), f.escrow, "Disputed", [
          id,
          seller,
          reason,
        ]);
        await viem.assertions.emitWithArgs(f.as.arbiter.write.resolve([id, terms, 0]), f.escrow, "Resolved", [
          id,
          0,
          0n,
          amount,
          0n,
        ]);
        await balances.assertChanged({});
      });

      it("100%: everything to the seller less the fee", async () => {
        const f = await loadEscrowFixture(token);
        const balances = await trackAll(f);
        const { id, terms } = await disputed(f);
        await viem.assertions.emitWithArgs(f.as.arbiter.write.resolve([id, terms, 10_000]), f.escrow, "Resolved", [
          id,
          10_000,
          33_000_000n,
          0n,
          333_333n,
        ]);
        await balances.assertChanged({ buyer: -amount, seller: 33_000_000n, feeRecipient: 333_333n });
      });

      it("the dispute window closes: no dispute at its end, and anyone may release", async () => {
        const f = await loadEscrowFixture(token);
        const { id, terms } = await fundEscrow(f, { amount });
        const delivered = await deliver(f, id, terms);
        const closesAt = delivered.deliveredAt + delivered.disputeWindow;
        await time.setNextBlockTimestamp(closesAt);
        await viem.assertions.revertWithCustomErrorWithArgs(
          f.as.buyer.write.dispute([id, delivered, reason]),
          f.escrow,
          "Escrow_DisputeWindowClosed",
          [id, BigInt(closesAt)],
        );
        await time.setNextBlockTimestamp(closesAt);
        await viem.assertions.emitWithArgs(f.as.relayer.write.release([id, delivered]), f.escrow, "Released", [
          id,
          f.addr.relayer,
          amount - 333_333n,
          333_333n,
        ]);
        assert.equal(await now(), closesAt);
      });
    });

    it("blacklisted seller: release credits the seller; withdrawCredit pays once unblacklisted", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, seller } = f.addr;
      const balances = await trackAll(f);
      const amount = 10n * USDC;
      const fee = 100_000n;
      const { id, terms } = await fundEscrow(f, { amount });
      const delivered = await deliver(f, id, terms);
      await mined(f.usdcAs.owner.write.blacklist([seller]));

      const releaseHash = await f.as.buyer.write.release([id, delivered]);
      await viem.assertions.emitWithArgs(releaseHash, f.escrow, "Released", [id, buyer, amount - fee, fee]);
      await viem.assertions.emitWithArgs(releaseHash, f.escrow, "Credited", [seller, amount - fee]);
      assert.equal(await statusOf(f, id), EscrowStatus.Released);
      assert.equal(await f.escrow.read.creditOf([seller]), amount - fee);
      assert.equal(await f.escrow.read.totalCredits(), amount - fee);
      // The fee recipient was paid; the seller's share stays in the escrow.
      await balances.assertChanged({ buyer: -amount, feeRecipient: fee, escrow: amount - fee });

      // While blacklisted, the token refuses the payout; the credit stays.
      await assertTokenRefused(f, f.as.stranger.write.withdrawCredit([seller]), {
        reason: "blacklisted",
        account: seller,
      });
      assert.equal(await f.escrow.read.creditOf([seller]), amount - fee);
      await mined(f.usdcAs.owner.write.unBlacklist([seller]));
      // Anyone may trigger the payout; it goes to the seller.
      await viem.assertions.emitWithArgs(f.as.stranger.write.withdrawCredit([seller]), f.escrow, "CreditWithdrawn", [
        seller,
        amount - fee,
      ]);
      assert.equal(await f.escrow.read.creditOf([seller]), 0n);
      assert.equal(await f.escrow.read.totalCredits(), 0n);
      await balances.assertChanged({ buyer: -amount, seller: amount - fee, feeRecipient: fee });
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.stranger.write.withdrawCredit([seller]),
        f.escrow,
        "Escrow_NoCredit",
        [seller],
      );
    });

    it("a fee change applies to escrows funded afterwards only", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer } = f.addr;
      const balances = await trackAll(f);
      const amount = 40n * USDC;
      const before = await fundEscrow(f, { amount });
      await viem.assertions.emitWithArgs(f.escrow.write.setFeeBps([250]), f.escrow, "FeeUpdated", [250]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.escrow.write.setFeeBps([1_001]),
        f.escrow,
        "Escrow_FeeAboveCap",
        [1_001, 1_000],
      );
      const after = await fundEscrow(f, { amount });
      assert.equal(before.terms.feeBps, FEE_BPS);
      assert.equal(after.terms.feeBps, 250);

      await viem.assertions.emitWithArgs(f.as.buyer.write.release([before.id, before.terms]), f.escrow, "Released", [
        before.id,
        buyer,
        amount - 400_000n,
        400_000n,
      ]);
      await viem.assertions.emitWithArgs(f.as.buyer.write.release([after.id, after.terms]), f.escrow, "Released", [
        after.id,
        buyer,
        amount - 1_000_000n,
        1_000_000n,
      ]);
      await balances.assertChanged({ buyer: -2n * amount, seller: 2n * amount - 1_400_000n, feeRecipient: 1_400_000n });
    });
  });
}

describe("AgentEscrow", () => {
  describe("client helpers match the contract", () => {
    it("uuidOfEscrowRef(escrowRef(u)) === u", () => {
      for (let i = 0; i < 50; i++) {
        const uuid = randomUUID();
        const ref = escrowRef(uuid);
        assert.match(ref, /^0x0{32}[0-9a-f]{32}$/);
        assert.equal(uuidOfEscrowRef(ref), uuid);
      }
      const upper = "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11";
      assert.equal(uuidOfEscrowRef(escrowRef(upper)), upper.toLowerCase());
      assert.throws(() => escrowRef("not-a-uuid"));
      assert.throws(() => uuidOfEscrowRef(keccak256(stringToHex("not a uuid ref"))));
    });

    it("escrowIdOf and escrowIdOfTransaction equal the contract's escrowIdOf", async () => {
      const f = await loadEscrowFixture("MockUSDC");
      const buyers = [
        f.addr.buyer,
        f.addr.stranger,
        zeroAddress,
        "0xFFfFfFffFFfffFFfFFfFFFFFffFFFffffFfFFFfF",
      ] as const;
      for (const buyer of buyers) {
        const { uuid, ref } = newEscrowRef();
        const id = await f.escrow.read.escrowIdOf([buyer, ref]);
        assert.equal(escrowIdOf(buyer, ref), id);
        assert.equal(escrowIdOfTransaction(buyer, uuid), id);
        const raw = keccak256(stringToHex(uuid));
        assert.equal(escrowIdOf(buyer, raw), await f.escrow.read.escrowIdOf([buyer, raw]));
      }
      // Lowercase and checksummed addresses name the same buyer.
      const { ref } = newEscrowRef();
      assert.equal(escrowIdOf(f.addr.buyer.toLowerCase() as `0x${string}`, ref), escrowIdOf(f.addr.buyer, ref));
      assert.notEqual(escrowIdOf(f.addr.buyer, ref), escrowIdOf(f.addr.stranger, ref));
    });

    it("hashEscrowTerms and fundingNonce equal hashTerms and fundingNonce", async () => {
      const f = await loadEscrowFixture("MockUSDC");
      const { buyer, seller } = f.addr;
      const cases: EscrowTerms[] = [
        {
          buyer: buyer,
          seller: seller,
          amount: 1n,
          deadline: 1,
          disputeWindow: 0,
          deliveredAt: 0,
          feeBps: 0,
        },
        {
          buyer: buyer,
          seller: zeroAddress,
          amount: 2n ** 128n - 1n,
          deadline: 2 ** 40 - 1,
          disputeWindow: 2 ** 32 - 1,
          deliveredAt: 2 ** 40 - 1,
          feeBps: 2 ** 16 - 1,
        },
        {
          buyer: "0xFFfFfFffFFfffFFfFFfFFFFFffFFFffffFfFFFfF",
          seller: "0x0000000000000000000000000000000000000001",
          amount: maxUint256,
          deadline: 1_900_000_000,
          disputeWindow: DAY,
          deliveredAt: 1_899_000_000,
          feeBps: FEE_BPS,
        },
      ];
      for (const terms of cases) {
        assert.equal(hashEscrowTerms(terms), await f.escrow.read.hashTerms([terms]));
        const id = escrowIdOf(terms.buyer, newEscrowRef().ref);
        assert.equal(
          fundingNonce(id, terms.seller, terms.deadline, terms.disputeWindow),
          await f.escrow.read.fundingNonce([id, terms.seller, terms.deadline, terms.disputeWindow]),
        );
      }
      assert.equal(BigInt(hashEscrowTerms(cases[0] as EscrowTerms)) & 0xffn, 0n);
    });

    it("the stored hash equals hashEscrowTerms of the indexed terms after each move", async () => {
      const f = await loadEscrowFixture("MockUSDC");
      const { seller, stranger } = f.addr;
      const check = async (id: `0x${string}`, status: EscrowStatus) => {
        const terms = await indexTerms(f.escrow, id);
        await assertStored(f, id, status, terms);
        return terms;
      };

      // Bounty: fund, claim, claim lapses, re-assign, deliver, dispute, resolve.
      const { id, ref } = await fundEscrow(f, { seller: zeroAddress, amount: 4n * USDC });
      let terms = await check(id, EscrowStatus.Funded);
      await mined(f.as.operator.write.assignSeller([id, terms, stranger, (await now()) + DAY]));
      terms = await check(id, EscrowStatus.Funded);
      assert.equal(terms.seller, stranger);
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.operator.write.assignSeller([id, terms, seller, (await now()) + DAY]),
        f.escrow,
        "Escrow_SellerAlreadyAssigned",
        [id, stranger],
      );
      await time.increaseTo(terms.deadline + 1);
      await mined(f.as.buyer.write.assignSeller([id, terms, seller, (await now()) + 2 * DAY]));
      terms = await check(id, EscrowStatus.Funded);
      assert.equal(terms.seller, seller);
      const stale = terms;
      await mined(f.as.seller.write.deliver([id, terms, work]));
      terms = await check(id, EscrowStatus.Delivered);
      assert.notEqual(terms.deliveredAt, 0);
      // The terms before delivery no longer match.
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.buyer.write.dispute([id, stale, reason]),
        f.escrow,
        "Escrow_TermsMismatch",
        [id],
      );
      await mined(f.as.buyer.write.dispute([id, terms, reason]));
      terms = await check(id, EscrowStatus.Disputed);
      await mined(f.as.arbiter.write.resolve([id, terms, 5_000]));
      assert.equal(await statusOf(f, id), EscrowStatus.Resolved);

      // A buyer's ref is never reused, whatever the escrow's state.
      await mined(f.usdcAs.buyer.write.approve([f.escrow.address, USDC]));
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.buyer.write.fund([ref, seller, USDC, (await now()) + DAY, DAY]),
        f.escrow,
        "Escrow_AlreadyExists",
        [id],
      );
      // Unknown ids are reported as such.
      const unknown = escrowIdOf(f.addr.buyer, newEscrowRef().ref);
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.buyer.write.release([unknown, terms]),
        f.escrow,
        "Escrow_NotFound",
        [unknown],
      );
      const [status, hash] = await f.escrow.read.escrowState([unknown]);
      assert.equal(status, EscrowStatus.None);
      assert.equal(BigInt(hash), 0n);
    });
  });
});
