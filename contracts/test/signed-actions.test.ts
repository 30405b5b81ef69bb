/**
 * Signed actions as a relayer submits them: the relayer holds no role and pays the gas; the parties
 * only sign (EIP-712 for the escrow's actions, EIP-3009 for funding). Every signed form must work
 * when valid and be refused when replayed, expired, signed by the wrong party, made for another
 * chain or another escrow contract, or cancelled.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type Address,
  domainSeparator,
  getAddress,
  type Hex,
  keccak256,
  parseSignature,
  stringToHex,
  zeroAddress,
} from "viem";
import { EscrowStatus, type EscrowTerms, escrowActionTypes, escrowDomain, escrowIdOf } from "../src/escrow.ts";
import {
  type AuthorizeFundingOptions,
  assertStored,
  assertTokenRefused,
  authorizeFunding,
  balanceTracker,
  DAY,
  type EscrowFixture,
  FEE_BPS,
  type FundingTerms,
  fundEscrow,
  loadEscrowFixture,
  mined,
  networkHelpers,
  newEscrowRef,
  now,
  statusOf,
  submitFunding,
  termsAfter,
  USDC,
  USDC_KINDS,
  usdcDomain,
  viem,
  type Wallet,
} from "./fixtures.ts";

const { time } = networkHelpers;
const work = keccak256(stringToHex("signed deliverable"));
const reason = keccak256(stringToHex("signed complaint"));
const AMOUNT = 20n * USDC;
const FEE = 200_000n;

type Domain = ReturnType<typeof escrowDomain>;

/** Nonce, signature deadline and (optionally) a different domain to sign for. */
interface SigParams {
  nonce: bigint;
  sigDeadline: bigint;
  domain?: Domain;
}

/** One signed action, ready to sign and submit against one escrow. */
interface PreparedAction {
  id: Hex;
  terms: EscrowTerms;
  /** The party whose signature the action needs. */
  signer: Wallet;
  /** Signs this action's message with `by`'s key. */
  sign(by: Wallet, params: SigParams): Promise<Hex>;
  /** The relayer submits the signed action in the name of `signer`. */
  submit(signer: Address, params: SigParams, signature: Hex): Promise<Hex>;
  /** Checks the effects of a successful submission (event, actor, state). */
  assertDone(hash: Hex): Promise<void>;
  /** A party that may not take this action, and how the contract refuses it. */
  wrongParty: { by: Wallet; assertRefused(submission: Promise<Hex>): Promise<void> };
}

interface ActionCase {
  name: string;
  /** Who signs, in words. */
  signerRole: string;
  prepare(f: EscrowFixture): Promise<PreparedAction>;
}

const domainOf = (f: EscrowFixture, params: SigParams) => params.domain ?? escrowDomain(f.chainId, f.escrow.address);

async function sigDeadlineIn(seconds: number): Promise<bigint> {
  return BigInt((await now()) + seconds);
}

/** Funds an escrow and has the seller deliver it; returns the delivered terms. */
async function fundAndDeliver(f: EscrowFixture) {
  const { id, terms } = await fundEscrow(f, { amount: AMOUNT });
  const receipt = await mined(f.as.seller.write.deliver([id, terms, work]));
  return { id, terms: await termsAfter(f.escrow, id, receipt, terms) };
}

const cases: ActionCase[] = [
  {
    name: "assignSellerWithSig",
    signerRole: "buyer",
    async prepare(f) {
      const { id, terms } = await fundEscrow(f, { seller: zeroAddress, amount: AMOUNT });
      const seller = f.addr.seller;
      const deadline = (await now()) + 2 * DAY;
      return {
        id,
        terms,
        signer: f.wallets.buyer,
        sign: (by, p) =>
          by.signTypedData({
            domain: domainOf(f, p),
            types: escrowActionTypes,
            primaryType: "AssignSeller",
            message: { escrowId: id, seller, deadline, nonce: p.nonce, sigDeadline: p.sigDeadline },
          }),
        submit: (signer, p, signature) =>
          f.as.relayer.write.assignSellerWithSig([
            id,
            terms,
            seller,
            deadline,
            signer,
            p.nonce,
            p.sigDeadline,
            signature,
          ]),
        async assertDone(hash) {
          await viem.assertions.emitWithArgs(hash, f.escrow, "SellerAssigned", [id, seller, deadline]);
          await assertStored(f, id, EscrowStatus.Funded, { ...terms, seller, deadline });
        },
        wrongParty: {
          // The seller cannot assign the bounty to itself.
          by: f.wallets.seller,
          assertRefused: (submission) =>
            viem.assertions.revertWithCustomErrorWithArgs(submission, f.escrow, "Escrow_CallerNotBuyerOrOperator", [
              id,
              f.addr.seller,
            ]),
        },
      };
    },
  },
  {
    name: "deliverWithSig",
    signerRole: "seller",
    async prepare(f) {
      const { id, terms } = await fundEscrow(f, { amount: AMOUNT });
      return {
        id,
        terms,
        signer: f.wallets.seller,
        sign: (by, p) =>
          by.signTypedData({
            domain: domainOf(f, p),
            types: escrowActionTypes,
            primaryType: "Deliver",
            message: { escrowId: id, deliverableHash: work, nonce: p.nonce, sigDeadline: p.sigDeadline },
          }),
        submit: (signer, p, signature) =>
          f.as.relayer.write.deliverWithSig([id, terms, work, signer, p.nonce, p.sigDeadline, signature]),
        async assertDone(hash) {
          await viem.assertions.emitWithArgs(hash, f.escrow, "Delivered", [id, work]);
          const delivered = await termsAfter(f.escrow, id, await mined(hash), terms);
          assert.equal(delivered.deliveredAt, await now());
          await assertStored(f, id, EscrowStatus.Delivered, delivered);
        },
        wrongParty: {
          by: f.wallets.buyer,
          assertRefused: (submission) =>
            viem.assertions.revertWithCustomErrorWithArgs(submission, f.escrow, "Escrow_CallerNotSeller", [
              id,
              f.addr.buyer,
            ]),
        },
      };
    },
  },
  {
    name: "releaseWithSig",
    signerRole: "buyer",
    async prepare(f) {
      const { id, terms } = await fundAndDeliver(f);
      const balances = await balanceTracker(f.usdc, {
        buyer: f.addr.buyer,
        seller: f.addr.seller,
        feeRecipient: f.addr.feeRecipient,
        relayer: f.addr.relayer,
        escrow: f.escrow.address,
      });
      return {
        id,
        terms,
        signer: f.wallets.buyer,
        sign: (by, p) =>
          by.signTypedData({
            domain: domainOf(f, p),
            types: escrowActionTypes,
            primaryType: "Release",
            message: { escrowId: id, nonce: p.nonce, sigDeadline: p.sigDeadline },
          }),
        submit: (signer, p, signature) =>
          f.as.relayer.write.releaseWithSig([id, terms, signer, p.nonce, p.sigDeadline, signature]),
        async assertDone(hash) {
          await viem.assertions.emitWithArgs(hash, f.escrow, "Released", [id, f.addr.buyer, AMOUNT - FEE, FEE]);
          assert.equal(await statusOf(f, id), EscrowStatus.Released);
          await balances.assertChanged({ seller: AMOUNT - FEE, feeRecipient: FEE, escrow: -AMOUNT });
        },
        wrongParty: {
          // The seller cannot release to itself within the dispute window.
          by: f.wallets.seller,
          assertRefused: (submission) =>
            viem.assertions.revertWithCustomErrorWithArgs(submission, f.escrow, "Escrow_ReleaseNotAllowed", [
              id,
              f.addr.seller,
            ]),
        },
      };
    },
  },
  {
    name: "refundWithSig",
    signerRole: "buyer",
    async prepare(f) {
      const { id, terms } = await fundEscrow(f, { amount: AMOUNT });
      const balances = await balanceTracker(f.usdc, {
        buyer: f.addr.buyer,
        relayer: f.addr.relayer,
        escrow: f.escrow.address,
      });
      return {
        id,
        terms,
        signer: f.wallets.buyer,
        sign: (by, p) =>
          by.signTypedData({
            domain: domainOf(f, p),
            types: escrowActionTypes,
            primaryType: "Refund",
            message: { escrowId: id, nonce: p.nonce, sigDeadline: p.sigDeadline },
          }),
        submit: (signer, p, signature) =>
          f.as.relayer.write.refundWithSig([id, terms, signer, p.nonce, p.sigDeadline, signature]),
        async assertDone(hash) {
          await viem.assertions.emitWithArgs(hash, f.escrow, "Refunded", [id, f.addr.buyer, AMOUNT]);
          assert.equal(await statusOf(f, id), EscrowStatus.Refunded);
          await balances.assertChanged({ buyer: AMOUNT, escrow: -AMOUNT });
        },
        wrongParty: {
          // A stranger may refund only after the deadline.
          by: f.wallets.stranger,
          assertRefused: (submission) =>
            viem.assertions.revertWithCustomErrorWithArgs(submission, f.escrow, "Escrow_RefundNotAllowed", [
              id,
              f.addr.stranger,
            ]),
        },
      };
    },
  },
  {
    name: "disputeWithSig",
    signerRole: "buyer",
    async prepare(f) {
      const { id, terms } = await fundAndDeliver(f);
      return {
        id,
        terms,
        signer: f.wallets.buyer,
        sign: (by, p) =>
          by.signTypedData({
            domain: domainOf(f, p),
            types: escrowActionTypes,
            primaryType: "Dispute",
            message: { escrowId: id, reasonHash: reason, nonce: p.nonce, sigDeadline: p.sigDeadline },
          }),
        submit: (signer, p, signature) =>
          f.as.relayer.write.disputeWithSig([id, terms, reason, signer, p.nonce, p.sigDeadline, signature]),
        async assertDone(hash) {
          await viem.assertions.emitWithArgs(hash, f.escrow, "Disputed", [id, f.addr.buyer, reason]);
          await assertStored(f, id, EscrowStatus.Disputed, terms);
        },
        wrongParty: {
          by: f.wallets.stranger,
          assertRefused: (submission) =>
            viem.assertions.revertWithCustomErrorWithArgs(submission, f.escrow, "Escrow_CallerNotParty", [
              id,
              f.addr.stranger,
            ]),
        },
      };
    },
  },
];

for (const token of USDC_KINDS) {
  describe(`signed actions submitted by a relayer, on ${token}`, () => {
    it("the relayer holds no role", async () => {
      const f = await loadEscrowFixture(token);
      const relayer = f.addr.relayer;
      for (const role of [
        await f.escrow.read.owner(),
        await f.escrow.read.operator(),
        await f.escrow.read.arbiter(),
        await f.escrow.read.feeRecipient(),
      ]) {
        assert.notEqual(getAddress(role), relayer);
      }
      assert.notEqual(relayer, f.addr.buyer);
      assert.notEqual(relayer, f.addr.seller);
    });

    for (const c of cases) {
      describe(c.name, () => {
        it(`a valid signature by the ${c.signerRole} works and spends the nonce`, async () => {
          const f = await loadEscrowFixture(token);
          const a = await c.prepare(f);
          // A nonce in a high bitmap word.
          const params = { nonce: (2n ** 200n) | 77n, sigDeadline: await sigDeadlineIn(3_600) };
          const signer = getAddress(a.signer.account.address);
          assert.equal(await f.escrow.read.isNonceUsed([signer, params.nonce]), false);
          const hash = await a.submit(signer, params, await a.sign(a.signer, params));
          const receipt = await mined(hash);
          assert.equal(getAddress(receipt.from), f.addr.relayer);
          await a.assertDone(hash);
          assert.equal(await f.escrow.read.isNonceUsed([signer, params.nonce]), true);
          // Only that nonce.
          assert.equal(await f.escrow.read.isNonceUsed([signer, params.nonce ^ 1n]), false);
        });

        it("a replayed signature is refused with Escrow_NonceUsed", async () => {
          const f = await loadEscrowFixture(token);
          const a = await c.prepare(f);
          const params = { nonce: 0n, sigDeadline: await sigDeadlineIn(3_600) };
          const signer = getAddress(a.signer.account.address);
          const signature = await a.sign(a.signer, params);
          await mined(a.submit(signer, params, signature));
          await viem.assertions.revertWithCustomErrorWithArgs(
            a.submit(signer, params, signature),
            f.escrow,
            "Escrow_NonceUsed",
            [signer, 0n],
          );
        });

        it("an expired signature is refused with Escrow_SignatureExpired", async () => {
          const f = await loadEscrowFixture(token);
          const a = await c.prepare(f);
          const params = { nonce: 1n, sigDeadline: await sigDeadlineIn(60) };
          const signer = getAddress(a.signer.account.address);
          const signature = await a.sign(a.signer, params);
          await time.increase(61);
          await viem.assertions.revertWithCustomErrorWithArgs(
            a.submit(signer, params, signature),
            f.escrow,
            "Escrow_SignatureExpired",
            [params.sigDeadline],
          );
        });

        it("a signature by a party that may not take the action is refused", async () => {
          const f = await loadEscrowFixture(token);
          const a = await c.prepare(f);
          const params = { nonce: 2n, sigDeadline: await sigDeadlineIn(3_600) };
          const by = a.wrongParty.by;
          await a.wrongParty.assertRefused(a.submit(getAddress(by.account.address), params, await a.sign(by, params)));
        });

        it(`a signature by another key in the ${c.signerRole}'s name gives Escrow_InvalidSignature`, async () => {
          const f = await loadEscrowFixture(token);
          const a = await c.prepare(f);
          const params = { nonce: 3n, sigDeadline: await sigDeadlineIn(3_600) };
          const signer = getAddress(a.signer.account.address);
          await viem.assertions.revertWithCustomErrorWithArgs(
            a.submit(signer, params, await a.sign(f.wallets.stranger, params)),
            f.escrow,
            "Escrow_InvalidSignature",
            [signer],
          );
        });

        it("a signature for another chain id gives Escrow_InvalidSignature", async () => {
          const f = await loadEscrowFixture(token);
          const a = await c.prepare(f);
          const domain = escrowDomain(8453, f.escrow.address);
          assert.notEqual(domain.chainId, f.chainId);
          const params = { nonce: 4n, sigDeadline: await sigDeadlineIn(3_600), domain };
          const signer = getAddress(a.signer.account.address);
          await viem.assertions.revertWithCustomErrorWithArgs(
            a.submit(signer, params, await a.sign(a.signer, params)),
            f.escrow,
            "Escrow_InvalidSignature",
            [signer],
          );
        });

        it("a signature for another escrow contract gives Escrow_InvalidSignature", async () => {
          const f = await loadEscrowFixture(token);
          const a = await c.prepare(f);
          const params = {
            nonce: 5n,
            sigDeadline: await sigDeadlineIn(3_600),
            domain: escrowDomain(f.chainId, f.otherEscrow.address),
          };
          const signer = getAddress(a.signer.account.address);
          await viem.assertions.revertWithCustomErrorWithArgs(
            a.submit(signer, params, await a.sign(a.signer, params)),
            f.escrow,
            "Escrow_InvalidSignature",
            [signer],
          );
        });

        it("a nonce cancelled with invalidateNonces is refused with Escrow_NonceUsed", async () => {
          const f = await loadEscrowFixture(token);
          const a = await c.prepare(f);
          const wordPos = 3n;
          const bit = 200n;
          const nonce = (wordPos << 8n) | bit;
          const params = { nonce, sigDeadline: await sigDeadlineIn(3_600) };
          const signer = getAddress(a.signer.account.address);
          const signature = await a.sign(a.signer, params);
          const asSigner = await viem.getContractAt("AgentEscrow", f.escrow.address, { client: { wallet: a.signer } });
          const mask = (1n << bit) | 1n;
          await viem.assertions.emitWithArgs(
            asSigner.write.invalidateNonces([wordPos, mask]),
            f.escrow,
            "NoncesInvalidated",
            [signer, wordPos, mask],
          );
          assert.equal(await f.escrow.read.isNonceUsed([signer, nonce]), true);
          assert.equal(await f.escrow.read.isNonceUsed([signer, wordPos << 8n]), true);
          assert.equal(await f.escrow.read.isNonceUsed([signer, nonce + 1n]), false);
          await viem.assertions.revertWithCustomErrorWithArgs(
            a.submit(signer, params, signature),
            f.escrow,
            "Escrow_NonceUsed",
            [signer, nonce],
          );
        });
      });
    }

    describe("more signed-action checks", () => {
      it("a signature is valid up to and including sigDeadline", async () => {
        const f = await loadEscrowFixture(token);
        const a = await cases[2]?.prepare(f);
        assert.ok(a);
        const params = { nonce: 9n, sigDeadline: await sigDeadlineIn(600) };
        const signature = await a.sign(a.signer, params);
        await time.setNextBlockTimestamp(params.sigDeadline);
        await a.assertDone(await a.submit(f.addr.buyer, params, signature));
      });

      it("a Refund signature cannot be submitted as a Release (same fields, other type)", async () => {
        const f = await loadEscrowFixture(token);
        const { id, terms } = await fundAndDeliver(f);
        const params = { nonce: 0n, sigDeadline: await sigDeadlineIn(3_600) };
        const refundSig = await f.wallets.buyer.signTypedData({
          domain: escrowDomain(f.chainId, f.escrow.address),
          types: escrowActionTypes,
          primaryType: "Refund",
          message: { escrowId: id, ...params },
        });
        await viem.assertions.revertWithCustomErrorWithArgs(
          f.as.relayer.write.releaseWithSig([id, terms, f.addr.buyer, 0n, params.sigDeadline, refundSig]),
          f.escrow,
          "Escrow_InvalidSignature",
          [f.addr.buyer],
        );
      });

      it("a Release signature for one escrow cannot release another", async () => {
        const f = await loadEscrowFixture(token);
        const first = await fundAndDeliver(f);
        const second = await fundAndDeliver(f);
        const params = { nonce: 0n, sigDeadline: await sigDeadlineIn(3_600) };
        const signature = await f.wallets.buyer.signTypedData({
          domain: escrowDomain(f.chainId, f.escrow.address),
          types: escrowActionTypes,
          primaryType: "Release",
          message: { escrowId: first.id, ...params },
        });
        await viem.assertions.revertWithCustomErrorWithArgs(
          f.as.relayer.write.releaseWithSig([second.id, second.terms, f.addr.buyer, 0n, params.sigDeadline, signature]),
          f.escrow,
          "Escrow_InvalidSignature",
          [f.addr.buyer],
        );
      });

      it("the operator's signature assigns a bounty's seller", async () => {
        const f = await loadEscrowFixture(token);
        const { id, terms } = await fundEscrow(f, { seller: zeroAddress, amount: AMOUNT });
        const deadline = (await now()) + DAY;
        const params = { nonce: 0n, sigDeadline: await sigDeadlineIn(3_600) };
        const signature = await f.wallets.operator.signTypedData({
          domain: escrowDomain(f.chainId, f.escrow.address),
          types: escrowActionTypes,
          primaryType: "AssignSeller",
          message: { escrowId: id, seller: f.addr.seller, deadline, ...params },
        });
        await viem.assertions.emitWithArgs(
          f.as.relayer.write.assignSellerWithSig([
            id,
            terms,
            f.addr.seller,
            deadline,
            f.addr.operator,
            0n,
            params.sigDeadline,
            signature,
          ]),
          f.escrow,
          "SellerAssigned",
          [id, f.addr.seller, deadline],
        );
      });

      it("the seller's signatures: dispute, then refund from Disputed", async () => {
        const f = await loadEscrowFixture(token);
        const { id, terms } = await fundAndDeliver(f);
        const domain = escrowDomain(f.chainId, f.escrow.address);
        const sigDeadline = await sigDeadlineIn(3_600);
        const balances = await balanceTracker(f.usdc, { buyer: f.addr.buyer, escrow: f.escrow.address });
        const disputeSig = await f.wallets.seller.signTypedData({
          domain,
          types: escrowActionTypes,
          primaryType: "Dispute",
          message: { escrowId: id, reasonHash: reason, nonce: 0n, sigDeadline },
        });
        await viem.assertions.emitWithArgs(
          f.as.relayer.write.disputeWithSig([id, terms, reason, f.addr.seller, 0n, sigDeadline, disputeSig]),
          f.escrow,
          "Disputed",
          [id, f.addr.seller, reason],
        );
        // The buyer's signed refund is refused once delivered; the seller's is accepted.
        const buyerRefund = await f.wallets.buyer.signTypedData({
          domain,
          types: escrowActionTypes,
          primaryType: "Refund",
          message: { escrowId: id, nonce: 0n, sigDeadline },
        });
        await viem.assertions.revertWithCustomErrorWithArgs(
          f.as.relayer.write.refundWithSig([id, terms, f.addr.buyer, 0n, sigDeadline, buyerRefund]),
          f.escrow,
          "Escrow_RefundNotAllowed",
          [id, f.addr.buyer],
        );
        const sellerRefund = await f.wallets.seller.signTypedData({
          domain,
          types: escrowActionTypes,
          primaryType: "Refund",
          message: { escrowId: id, nonce: 1n, sigDeadline },
        });
        await viem.assertions.emitWithArgs(
          f.as.relayer.write.refundWithSig([id, terms, f.addr.seller, 1n, sigDeadline, sellerRefund]),
          f.escrow,
          "Refunded",
          [id, f.addr.seller, AMOUNT],
        );
        await balances.assertChanged({ buyer: AMOUNT, escrow: -AMOUNT });
      });
    });
  });
}

/*//////////////////////////////////////////////////////////////
                  FUNDING WITH AN EIP-3009 AUTHORIZATION
//////////////////////////////////////////////////////////////*/

/** The buyer's authorization of a funding of AMOUNT (or of `opts.terms`). */
const authorize = (f: EscrowFixture, opts: AuthorizeFundingOptions = {}) =>
  authorizeFunding(f, { ...opts, terms: { amount: AMOUNT, ...opts.terms } });

for (const token of USDC_KINDS) {
  describe(`fundWithAuthorization submitted by a relayer, on ${token}`, () => {
    it("a valid authorization funds the escrow from the buyer's balance", async () => {
      const f = await loadEscrowFixture(token);
      const balances = await balanceTracker(f.usdc, {
        buyer: f.addr.buyer,
        relayer: f.addr.relayer,
        escrow: f.escrow.address,
      });
      // No allowance: the authorization alone moves the funds.
      assert.equal(await f.usdc.read.allowance([f.addr.buyer, f.escrow.address]), 0n);
      const auth = await authorize(f);
      const { terms, id } = auth;
      assert.equal(id, await f.escrow.read.escrowIdOf([f.addr.buyer, terms.ref]));
      const hash = await submitFunding(f, terms, auth);
      await viem.assertions.emitWithArgs(hash, f.escrow, "Funded", [
        id,
        f.addr.buyer,
        f.addr.seller,
        terms.ref,
        AMOUNT,
        terms.deadline,
        DAY,
        FEE_BPS,
      ]);
      await viem.assertions.emitWithArgs(hash, f.usdc, "AuthorizationUsed", [f.addr.buyer, auth.nonce]);
      const receipt = await mined(hash);
      assert.equal(getAddress(receipt.from), f.addr.relayer);
      const funded = await termsAfter(f.escrow, id, receipt);
      await assertStored(f, id, EscrowStatus.Funded, funded);
      assert.equal(funded.buyer, f.addr.buyer);
      assert.equal(await f.usdc.read.authorizationState([f.addr.buyer, auth.nonce]), true);
      await balances.assertChanged({ buyer: -AMOUNT, escrow: AMOUNT });

      // The escrow is an ordinary one: the buyer can refund it.
      await viem.assertions.emitWithArgs(f.as.buyer.write.refund([id, funded]), f.escrow, "Refunded", [
        id,
        f.addr.buyer,
        AMOUNT,
      ]);
      await balances.assertChanged({});
    });

    it("the buyer signs over the token's own EIP-712 domain; a signature over another domain is refused", async () => {
      const f = await loadEscrowFixture(token);
      // The domain a client signs over is the one the token checks: its DOMAIN_SEPARATOR.
      assert.equal(await f.usdc.read.DOMAIN_SEPARATOR(), domainSeparator({ domain: usdcDomain(f) }));
      const wrongDomains = [
        { name: "USDC" }, // Base Sepolia's USDC's name
        { version: "1" },
        { verifyingContract: f.otherEscrow.address },
      ];
      for (const domain of wrongDomains) {
        const wrong = await authorize(f, { domain });
        await assertTokenRefused(f, submitFunding(f, wrong.terms, wrong), { reason: "invalidSignature" });
      }
      const auth = await authorize(f);
      await viem.assertions.emitWithArgs(submitFunding(f, auth.terms, auth), f.usdc, "AuthorizationUsed", [
        f.addr.buyer,
        auth.nonce,
      ]);
    });

    const tampered: Array<[string, (t: FundingTerms, f: EscrowFixture) => Partial<FundingTerms>]> = [
      ["seller", (_t, f) => ({ seller: f.addr.stranger })],
      ["seller (to a bounty)", () => ({ seller: zeroAddress })],
      ["deadline", (t) => ({ deadline: t.deadline + 1 })],
      ["amount", (t) => ({ amount: t.amount + 1n })],
      ["dispute window", (t) => ({ disputeWindow: t.disputeWindow - 1 })],
      ["ref", () => ({ ref: newEscrowRef().ref })],
      ["buyer", (_t, f) => ({ buyer: f.addr.stranger })],
      ["validBefore", (t) => ({ validBefore: t.validBefore + 1n })],
    ];
    for (const [field, change] of tampered) {
      it(`a relayer changing the ${field} is refused by the token (invalid signature)`, async () => {
        const f = await loadEscrowFixture(token);
        const auth = await authorize(f);
        const changed = { ...auth.terms, ...change(auth.terms, f) };
        await assertTokenRefused(f, submitFunding(f, changed, auth), { reason: "invalidSignature" });
        // The buyer's signature, as signed, still works.
        await mined(submitFunding(f, auth.terms, auth));
      });
    }

    it("a replayed authorization is refused (the buyer's escrow under the ref exists; the token nonce is spent)", async () => {
      const f = await loadEscrowFixture(token);
      const auth = await authorize(f);
      await mined(submitFunding(f, auth.terms, auth));
      await viem.assertions.revertWithCustomErrorWithArgs(
        submitFunding(f, auth.terms, auth),
        f.escrow,
        "Escrow_AlreadyExists",
        [auth.id],
      );
      assert.equal(await f.usdc.read.authorizationState([f.addr.buyer, auth.nonce]), true);
      // Nor can the relayer use it on the token directly.
      await assertTokenRefused(
        f,
        f.usdcAs.relayer.write.receiveWithAuthorization([
          f.addr.buyer,
          f.escrow.address,
          AMOUNT,
          auth.terms.validAfter,
          auth.terms.validBefore,
          auth.nonce,
          auth.v,
          auth.r,
          auth.s,
        ]),
        { reason: "callerMustBePayee", caller: f.addr.relayer, payee: f.escrow.address },
      );
    });

    it("a third party that funded the ref first does not block the buyer's authorization", async () => {
      const f = await loadEscrowFixture(token);
      const auth = await authorize(f);
      const { terms } = auth;
      // The stranger saw the pending ref and funds it first, with itself as buyer and the same terms.
      await mined(f.usdcAs.stranger.write.approve([f.escrow.address, 1n]));
      const squat = await mined(
        f.as.stranger.write.fund([terms.ref, terms.seller, 1n, terms.deadline, terms.disputeWindow]),
      );
      const squatId = escrowIdOf(f.addr.stranger, terms.ref);
      const squatTerms = await termsAfter(f.escrow, squatId, squat);

      const hash = await submitFunding(f, terms, auth);
      await viem.assertions.emitWithArgs(hash, f.escrow, "Funded", [
        auth.id,
        f.addr.buyer,
        f.addr.seller,
        terms.ref,
        AMOUNT,
        terms.deadline,
        DAY,
        FEE_BPS,
      ]);
      const funded = await termsAfter(f.escrow, auth.id, await mined(hash));
      assert.notEqual(auth.id, squatId);
      await assertStored(f, auth.id, EscrowStatus.Funded, funded);
      await assertStored(f, squatId, EscrowStatus.Funded, squatTerms);
      assert.equal(funded.amount, AMOUNT);
      assert.equal(squatTerms.buyer, f.addr.stranger);
    });

    it("an authorization the buyer cancelled is refused by the token", async () => {
      const f = await loadEscrowFixture(token);
      const auth = await authorize(f);
      const cancel = parseSignature(
        await f.wallets.buyer.signTypedData({
          domain: { name: "USD Coin", version: "2", chainId: f.chainId, verifyingContract: f.usdc.address },
          types: {
            CancelAuthorization: [
              { name: "authorizer", type: "address" },
              { name: "nonce", type: "bytes32" },
            ],
          },
          primaryType: "CancelAuthorization",
          message: { authorizer: f.addr.buyer, nonce: auth.nonce },
        }),
      );
      await mined(
        f.usdcAs.relayer.write.cancelAuthorization([f.addr.buyer, auth.nonce, Number(cancel.v), cancel.r, cancel.s]),
      );
      await assertTokenRefused(f, submitFunding(f, auth.terms, auth), {
        reason: "authorizationUsedOrCanceled",
        authorizer: f.addr.buyer,
        nonce: auth.nonce,
      });
    });

    it("an expired authorization (validBefore passed) is refused by the token", async () => {
      const f = await loadEscrowFixture(token);
      const auth = await authorize(f, { terms: { validBefore: BigInt((await now()) + 60) } });
      await time.increase(60);
      await assertTokenRefused(f, submitFunding(f, auth.terms, auth), {
        reason: "authorizationExpired",
        validBefore: auth.terms.validBefore,
      });
    });

    it("an authorization not yet valid (validAfter ahead) is refused by the token", async () => {
      const f = await loadEscrowFixture(token);
      const auth = await authorize(f, { terms: { validAfter: BigInt((await now()) + 600) } });
      await assertTokenRefused(f, submitFunding(f, auth.terms, auth), {
        reason: "authorizationNotYetValid",
        validAfter: auth.terms.validAfter,
      });
    });

    it("an authorization signed by someone other than the buyer is refused by the token", async () => {
      const f = await loadEscrowFixture(token);
      const auth = await authorize(f, { by: f.wallets.stranger });
      await assertTokenRefused(f, submitFunding(f, auth.terms, auth), { reason: "invalidSignature" });
    });

    it("an authorization for another chain id is refused by the token", async () => {
      const f = await loadEscrowFixture(token);
      const auth = await authorize(f, { domain: { chainId: 8453 } });
      await assertTokenRefused(f, submitFunding(f, auth.terms, auth), { reason: "invalidSignature" });
    });

    it("an authorization for another escrow contract is refused by the token, and works there", async () => {
      const f = await loadEscrowFixture(token);
      const auth = await authorize(f, { to: f.otherEscrow.address });
      await assertTokenRefused(f, submitFunding(f, auth.terms, auth), { reason: "invalidSignature" });
      const otherByRelayer = await viem.getContractAt("AgentEscrow", f.otherEscrow.address, {
        client: { wallet: f.wallets.relayer },
      });
      const { terms } = auth;
      await viem.assertions.emitWithArgs(
        otherByRelayer.write.fundWithAuthorization([
          terms.ref,
          terms.buyer,
          terms.seller,
          terms.amount,
          terms.deadline,
          terms.disputeWindow,
          { validAfter: terms.validAfter, validBefore: terms.validBefore, v: auth.v, r: auth.r, s: auth.s },
        ]),
        f.otherEscrow,
        "Funded",
        [auth.id, f.addr.buyer, f.addr.seller, terms.ref, AMOUNT, terms.deadline, DAY, FEE_BPS],
      );
    });

    it("the escrow's own checks apply before the token's (seller = buyer, past deadline)", async () => {
      const f = await loadEscrowFixture(token);
      const selfDeal = await authorize(f, { terms: { seller: f.addr.buyer } });
      await viem.assertions.revertWithCustomErrorWithArgs(
        submitFunding(f, selfDeal.terms, selfDeal),
        f.escrow,
        "Escrow_InvalidSeller",
        [f.addr.buyer],
      );
      const late = await authorize(f, { terms: { deadline: await now() } });
      await viem.assertions.revertWithCustomErrorWithArgs(
        submitFunding(f, late.terms, late),
        f.escrow,
        "Escrow_InvalidDeadline",
        [late.terms.deadline],
      );
    });
  });
}
