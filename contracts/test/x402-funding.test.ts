/**
 * x402 payments as escrow funding, on MockUSDC and on Circle's USDC: an unmodified x402 client's
 * EIP-3009 TransferWithAuthorization to the escrow (random nonce, valid from 600 s ago), settled by
 * the operator with `fundWithTransfer` into the escrow whose buyer is the signer (ref = nonce); the
 * operator acting for that keyless buyer; the payment submitted to the token directly first; and a
 * smart-contract wallet as the payer (FiatToken v2.2's `bytes` signature overload, ERC-1271).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type Address,
  getAddress,
  type Hex,
  hashTypedData,
  keccak256,
  type LocalAccount,
  parseEventLogs,
  parseSignature,
  stringToHex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { EscrowStatus, type EscrowTerms, escrowIdOf, transferWithAuthorizationTypes } from "../src/escrow.ts";
import {
  assertStored,
  assertTokenRefused,
  balanceTracker,
  DAY,
  defaultX402Terms,
  type EscrowFixture,
  FEE_BPS,
  fundEscrow,
  loadEscrowFixture,
  mined,
  mintUsdc,
  networkHelpers,
  newKeylessBuyer,
  now,
  publicClient,
  settleX402,
  signX402Payment,
  statusOf,
  submitX402,
  type TransferAuthorization,
  termsAfter,
  USDC,
  USDC_KINDS,
  usdcDomain,
  viem,
} from "./fixtures.ts";

const work = keccak256(stringToHex("x402 deliverable"));
const reason = keccak256(stringToHex("not what the listing said"));
const AMOUNT = 20n * USDC;
const FEE = (AMOUNT * BigInt(FEE_BPS)) / 10_000n;

/** The balances of the x402 buyer and of every party funds may go to. */
function track(f: EscrowFixture, buyer: Address) {
  return balanceTracker(f.usdc, {
    buyer,
    seller: f.addr.seller,
    feeRecipient: f.addr.feeRecipient,
    operator: f.addr.operator,
    escrow: f.escrow.address,
  });
}

/** A keyless buyer holding `AMOUNT`, and its stock x402 payment of `AMOUNT` to the escrow. */
async function x402Buyer(f: EscrowFixture) {
  const account = await newKeylessBuyer(f, AMOUNT);
  const authorization = await signX402Payment(f, { signer: account, value: AMOUNT });
  return { account, buyer: account.address, authorization };
}

async function deliver(f: EscrowFixture, id: Hex, terms: EscrowTerms) {
  return termsAfter(f.escrow, id, await mined(f.as.seller.write.deliver([id, terms, work])), terms);
}

/** Cancels `authorization`'s nonce at the token with the buyer's signature; the stranger submits it. */
async function cancelAtToken(f: EscrowFixture, account: LocalAccount, nonce: Hex) {
  const signature = await account.signTypedData({
    domain: usdcDomain(f),
    types: {
      CancelAuthorization: [
        { name: "authorizer", type: "address" },
        { name: "nonce", type: "bytes32" },
      ],
    },
    primaryType: "CancelAuthorization",
    message: { authorizer: account.address, nonce },
  });
  const { v, r, s } = parseSignature(signature);
  assert.ok(v !== undefined);
  await mined(f.usdcAs.stranger.write.cancelAuthorization([account.address, nonce, Number(v), r, s]));
}

/** A third party (the relayer) submits the authorization to the token itself, paying the escrow. */
function submitToToken(f: EscrowFixture, a: TransferAuthorization, to: Address = f.escrow.address) {
  return f.usdcAs.relayer.write.transferWithAuthorization([
    a.from,
    to,
    a.value,
    a.validAfter,
    a.validBefore,
    a.nonce,
    a.signature,
  ]);
}

for (const token of USDC_KINDS) {
  describe(`x402 payments into the escrow, on ${token}`, () => {
    it("a stock x402 payment funds the signer's escrow at escrowIdOf(from, nonce); the buyer sent nothing", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, authorization } = await x402Buyer(f);
      const balances = await track(f, buyer);
      const listing = await defaultX402Terms(f);
      const id = escrowIdOf(buyer, authorization.nonce);
      // What the contract will check (used when the payment was submitted elsewhere first).
      assert.equal(
        await f.escrow.read.transferAuthorizationDigest([
          buyer,
          AMOUNT,
          authorization.validAfter,
          authorization.validBefore,
          authorization.nonce,
        ]),
        hashTypedData({
          domain: usdcDomain(f),
          types: transferWithAuthorizationTypes,
          primaryType: "TransferWithAuthorization",
          message: { ...authorization, to: f.escrow.address },
        }),
      );
      const { result } = await f.as.operator.simulate.fundWithTransfer(
        [listing.seller, listing.deadline, listing.disputeWindow, authorization],
        { account: f.addr.operator },
      );
      assert.equal(result, id, "returns escrowIdOf(from, nonce)");

      const hash = submitX402(f, authorization, listing);
      await viem.assertions.emitWithArgs(hash, f.escrow, "Funded", [
        id,
        buyer,
        f.addr.seller,
        authorization.nonce,
        AMOUNT,
        listing.deadline,
        DAY,
        FEE_BPS,
      ]);
      const terms = await termsAfter(f.escrow, id, await publicClient.waitForTransactionReceipt({ hash: await hash }));
      assert.deepEqual(terms, {
        buyer,
        seller: f.addr.seller,
        amount: AMOUNT,
        deadline: listing.deadline,
        disputeWindow: DAY,
        deliveredAt: 0,
        feeBps: FEE_BPS,
      });
      await assertStored(f, id, EscrowStatus.Funded, terms);
      assert.equal(await f.escrow.read.isOperatorDelegated([id]), true);
      assert.equal(await f.escrow.read.isBounty([id]), false);
      assert.equal(await f.usdc.read.authorizationState([buyer, authorization.nonce]), true);
      await balances.assertChanged({ buyer: -AMOUNT, escrow: AMOUNT });
      assert.equal(await publicClient.getBalance({ address: buyer }), 0n, "the buyer never held ETH");
    });

    it("released: the operator releases for the keyless buyer after delivery", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, authorization } = await x402Buyer(f);
      const balances = await track(f, buyer);
      const { id, terms } = await settleX402(f, authorization);
      const delivered = await deliver(f, id, terms);
      await viem.assertions.emitWithArgs(f.as.operator.write.release([id, delivered]), f.escrow, "Released", [
        id,
        f.addr.operator,
        AMOUNT - FEE,
        FEE,
      ]);
      await assertStored(f, id, EscrowStatus.Released, delivered);
      await balances.assertChanged({ buyer: -AMOUNT, seller: AMOUNT - FEE, feeRecipient: FEE });
    });

    it("released early: the operator releases before delivery, as the buyer may", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, authorization } = await x402Buyer(f);
      const balances = await track(f, buyer);
      const { id, terms } = await settleX402(f, authorization);
      await mined(f.as.operator.write.release([id, terms]));
      assert.equal(await statusOf(f, id), EscrowStatus.Released);
      await balances.assertChanged({ buyer: -AMOUNT, seller: AMOUNT - FEE, feeRecipient: FEE });
    });

    it("refunded: the seller refunds, or anyone once the deadline passed; the buyer gets it all back", async () => {
      const f = await loadEscrowFixture(token);
      const { account, buyer, authorization } = await x402Buyer(f);
      const balances = await track(f, buyer);
      const first = await settleX402(f, authorization);
      await viem.assertions.emitWithArgs(f.as.seller.write.refund([first.id, first.terms]), f.escrow, "Refunded", [
        first.id,
        f.addr.seller,
        AMOUNT,
      ]);
      await balances.assertChanged({});

      // The buyer's next payment (a fresh random nonce), undelivered past its deadline.
      const next = await signX402Payment(f, { signer: account, value: AMOUNT });
      assert.notEqual(next.nonce, authorization.nonce);
      const { id, terms } = await settleX402(f, next);
      await networkHelpers.time.increaseTo(terms.deadline + 1);
      await mined(f.as.stranger.write.refund([id, terms]));
      assert.equal(await statusOf(f, id), EscrowStatus.Refunded);
      await balances.assertChanged({});
    });

    it("disputed by the operator for the buyer, resolved 70/30: seller share less the fee, the rest back", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, authorization } = await x402Buyer(f);
      const balances = await track(f, buyer);
      const { id, terms } = await settleX402(f, authorization);
      const delivered = await deliver(f, id, terms);
      await viem.assertions.emitWithArgs(f.as.operator.write.dispute([id, delivered, reason]), f.escrow, "Disputed", [
        id,
        f.addr.operator,
        reason,
      ]);
      const sellerShare = (AMOUNT * 7_000n) / 10_000n;
      const fee = (sellerShare * BigInt(FEE_BPS)) / 10_000n;
      await viem.assertions.emitWithArgs(f.as.arbiter.write.resolve([id, delivered, 7_000]), f.escrow, "Resolved", [
        id,
        7_000,
        sellerShare - fee,
        AMOUNT - sellerShare,
        fee,
      ]);
      await assertStored(f, id, EscrowStatus.Resolved, delivered);
      await balances.assertChanged({
        buyer: -sellerShare,
        seller: sellerShare - fee,
        feeRecipient: fee,
      });
    });

    it("the operator may not release or dispute an escrow the buyer funded itself", async () => {
      const f = await loadEscrowFixture(token);
      const { id, terms } = await fundEscrow(f, { amount: AMOUNT });
      assert.equal(await f.escrow.read.isOperatorDelegated([id]), false);
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.operator.write.release([id, terms]),
        f.escrow,
        "Escrow_CallerNotBuyer",
        [id, f.addr.operator],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.operator.write.dispute([id, terms, reason]),
        f.escrow,
        "Escrow_CallerNotParty",
        [id, f.addr.operator],
      );
      const delivered = await deliver(f, id, terms);
      await viem.assertions.revertWithCustomErrorWithArgs(
        f.as.operator.write.release([id, delivered]),
        f.escrow,
        "Escrow_ReleaseNotAllowed",
        [id, f.addr.operator],
      );
      assert.equal(await statusOf(f, id), EscrowStatus.Delivered);
    });

    it("only the operator may settle: the relayer, a stranger, the seller are refused and nothing moves", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, authorization } = await x402Buyer(f);
      const balances = await track(f, buyer);
      const listing = await defaultX402Terms(f);
      for (const [who, as] of [
        ["relayer", f.as.relayer],
        ["stranger", f.as.stranger],
        ["seller", f.as.seller],
      ] as const) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          submitX402(f, authorization, listing, as),
          f.escrow,
          "Escrow_CallerNotOperator",
          [f.addr[who]],
        );
      }
      assert.equal(await f.usdc.read.authorizationState([buyer, authorization.nonce]), false);
      await balances.assertChanged({});
    });

    it("refused, nothing moves: another payee, another value, another key, expired, not yet valid", async () => {
      const f = await loadEscrowFixture(token);
      const account = await newKeylessBuyer(f, AMOUNT);
      const buyer = account.address;
      const balances = await track(f, buyer);
      const listing = await defaultX402Terms(f);
      const start = BigInt(await now());

      // Paid to the seller directly: the escrow cannot claim it.
      const toSeller = await signX402Payment(f, { signer: account, value: AMOUNT, to: f.addr.seller });
      await assertTokenRefused(f, submitX402(f, toSeller, listing), { reason: "invalidSignature" });
      const signed = await signX402Payment(f, { signer: account, value: AMOUNT });
      await assertTokenRefused(f, submitX402(f, { ...signed, value: AMOUNT - 1n }, listing), {
        reason: "invalidSignature",
      });
      const byAnother = await signX402Payment(f, {
        signer: privateKeyToAccount(generatePrivateKey()),
        from: buyer,
        value: AMOUNT,
      });
      await assertTokenRefused(f, submitX402(f, byAnother, listing), { reason: "invalidSignature" });
      const notYet = await signX402Payment(f, { signer: account, value: AMOUNT, validAfter: start + 3_600n });
      await assertTokenRefused(f, submitX402(f, notYet, listing), {
        reason: "authorizationNotYetValid",
        validAfter: start + 3_600n,
      });
      const short = await signX402Payment(f, { signer: account, value: AMOUNT });
      await networkHelpers.time.increaseTo(short.validBefore);
      await assertTokenRefused(f, submitX402(f, short, listing), {
        reason: "authorizationExpired",
        validBefore: short.validBefore,
      });

      for (const a of [toSeller, signed, byAnother, notYet, short]) {
        assert.equal(await statusOf(f, escrowIdOf(buyer, a.nonce)), EscrowStatus.None);
        assert.equal(await f.usdc.read.authorizationState([buyer, a.nonce]), false);
      }
      await balances.assertChanged({});
    });

    it("replayed: Escrow_AlreadyExists, and the buyer paid once", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, authorization } = await x402Buyer(f);
      await mintUsdc(f, buyer, AMOUNT);
      const balances = await track(f, buyer);
      const { id } = await settleX402(f, authorization);
      const otherTerms = { ...(await defaultX402Terms(f)), disputeWindow: 0 };
      await viem.assertions.revertWithCustomErrorWithArgs(
        submitX402(f, authorization, otherTerms),
        f.escrow,
        "Escrow_AlreadyExists",
        [id],
      );
      await balances.assertChanged({ buyer: -AMOUNT, escrow: AMOUNT });
    });

    it("front-run: the payment submitted to the token first is settled once, with the listing's terms", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, authorization } = await x402Buyer(f);
      const balances = await track(f, buyer);
      await mined(submitToToken(f, authorization));
      await balances.assertChanged({ buyer: -AMOUNT, escrow: AMOUNT });

      const listing = await defaultX402Terms(f);
      const { id, terms, receipt } = await settleX402(f, authorization, listing);
      assert.deepEqual(terms, {
        buyer,
        seller: listing.seller,
        amount: AMOUNT,
        deadline: listing.deadline,
        disputeWindow: listing.disputeWindow,
        deliveredAt: 0,
        feeBps: FEE_BPS,
      });
      await assertStored(f, id, EscrowStatus.Funded, terms);
      const tokenEvents = receipt.logs.filter((log) => log.address.toLowerCase() === f.usdc.address.toLowerCase());
      assert.deepEqual(tokenEvents, [], "the settlement moved no tokens");
      await balances.assertChanged({ buyer: -AMOUNT, escrow: AMOUNT });
      assert.equal(await f.usdc.read.balanceOf([f.escrow.address]), AMOUNT, "credited once");

      await viem.assertions.revertWithCustomErrorWithArgs(
        submitX402(f, authorization, listing),
        f.escrow,
        "Escrow_AlreadyExists",
        [id],
      );
      // The escrow runs its course on the funds the front-runner moved.
      const delivered = await deliver(f, id, terms);
      await mined(f.as.operator.write.release([id, delivered]));
      await balances.assertChanged({ buyer: -AMOUNT, seller: AMOUNT - FEE, feeRecipient: FEE });
    });

    it("a used nonce with fields the buyer did not sign: the token's refusal is passed through", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, authorization } = await x402Buyer(f);
      await mined(submitToToken(f, authorization));
      await assertTokenRefused(f, submitX402(f, { ...authorization, value: 2n * AMOUNT }, await defaultX402Terms(f)), {
        reason: "authorizationUsedOrCanceled",
        authorizer: buyer,
        nonce: authorization.nonce,
      });
      assert.equal(await statusOf(f, escrowIdOf(buyer, authorization.nonce)), EscrowStatus.None);
    });

    it("a cancelled authorization gives a non-operator nothing: no escrow, nothing moves", async () => {
      const f = await loadEscrowFixture(token);
      const { account, buyer, authorization } = await x402Buyer(f);
      const balances = await track(f, buyer);
      await cancelAtToken(f, account, authorization.nonce);
      assert.equal(await f.usdc.read.authorizationState([buyer, authorization.nonce]), true);
      const listing = await defaultX402Terms(f);
      for (const [who, as] of [
        ["stranger", f.as.stranger],
        ["relayer", f.as.relayer],
      ] as const) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          submitX402(f, authorization, listing, as),
          f.escrow,
          "Escrow_CallerNotOperator",
          [f.addr[who]],
        );
      }
      assert.equal(await statusOf(f, escrowIdOf(buyer, authorization.nonce)), EscrowStatus.None);
      await balances.assertChanged({});
    });

    it("a smart-contract wallet pays (ERC-1271 through the token's bytes overload), directly or front-run", async () => {
      const f = await loadEscrowFixture(token);
      const owner = privateKeyToAccount(generatePrivateKey());
      const wallet = await viem.deployContract("ERC1271Wallet", [owner.address]);
      await mintUsdc(f, wallet.address, 2n * AMOUNT);
      const balances = await track(f, wallet.address);

      const direct = await signX402Payment(f, { signer: owner, from: wallet.address, value: AMOUNT });
      const settled = await settleX402(f, direct);
      await assertStored(f, settled.id, EscrowStatus.Funded, settled.terms);
      assert.equal(settled.terms.buyer, getAddress(wallet.address));

      const frontRun = await signX402Payment(f, { signer: owner, from: wallet.address, value: AMOUNT });
      await mined(submitToToken(f, frontRun));
      const recorded = await settleX402(f, frontRun);
      await assertStored(f, recorded.id, EscrowStatus.Funded, recorded.terms);
      await balances.assertChanged({ buyer: -2n * AMOUNT, escrow: 2n * AMOUNT });

      // A signature by any other key is refused by the wallet, hence by the token.
      const forged = await signX402Payment(f, {
        signer: privateKeyToAccount(generatePrivateKey()),
        from: wallet.address,
        value: 1n,
      });
      await assertTokenRefused(f, submitX402(f, forged, await defaultX402Terms(f)), { reason: "invalidSignature" });
      await balances.assertChanged({ buyer: -2n * AMOUNT, escrow: 2n * AMOUNT });
    });

    it("a blacklisted buyer's payment is refused by the token; no escrow opens", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, authorization } = await x402Buyer(f);
      const balances = await track(f, buyer);
      await mined(f.usdcAs.owner.write.blacklist([buyer]));
      await assertTokenRefused(f, submitX402(f, authorization, await defaultX402Terms(f)), {
        reason: "blacklisted",
        account: buyer,
      });
      assert.equal(await statusOf(f, escrowIdOf(buyer, authorization.nonce)), EscrowStatus.None);
      await balances.assertChanged({});
    });

    it("the indexer's view: Funded carries ref = nonce, and the settlement's token logs show the transfer", async () => {
      const f = await loadEscrowFixture(token);
      const { buyer, authorization } = await x402Buyer(f);
      const { id, receipt } = await settleX402(f, authorization);
      const [funded] = parseEventLogs({ abi: f.escrow.abi, logs: receipt.logs, eventName: "Funded" });
      assert.equal(funded?.args.ref, authorization.nonce);
      assert.equal(funded?.args.escrowId, id);
      // AuthorizationUsed(from, nonce) immediately followed by Transfer(from, escrow, value): the pair
      // the operator looks for before settling a payment submitted elsewhere first.
      const tokenLogs = parseEventLogs({
        abi: f.usdc.abi,
        logs: receipt.logs.filter((log) => log.address.toLowerCase() === f.usdc.address.toLowerCase()),
      });
      assert.deepEqual(
        tokenLogs.map((log) => log.eventName),
        ["AuthorizationUsed", "Transfer"],
      );
      assert.deepEqual(tokenLogs[0]?.args, { authorizer: buyer, nonce: authorization.nonce });
      assert.deepEqual(tokenLogs[1]?.args, { from: buyer, to: getAddress(f.escrow.address), value: AMOUNT });
      assert.equal((tokenLogs[1]?.logIndex ?? 0) - (tokenLogs[0]?.logIndex ?? 0), 1);
    });
  });
}

describe("x402 payments: a paused token (Circle USDC)", () => {
  it("refuses the payment while paused; a payment front-run before the pause is still settled", async () => {
    const f = await loadEscrowFixture("Circle USDC");
    const { buyer, authorization } = await x402Buyer(f);
    const frontRun = await signX402Payment(f, {
      signer: await newKeylessBuyer(f, AMOUNT),
      value: AMOUNT,
    });
    await mined(submitToToken(f, frontRun));
    await mined(f.usdcAs.owner.write.pause());

    await assertTokenRefused(f, submitX402(f, authorization, await defaultX402Terms(f)), { reason: "paused" });
    assert.equal(await statusOf(f, escrowIdOf(buyer, authorization.nonce)), EscrowStatus.None);
    const { id } = await settleX402(f, frontRun);
    assert.equal(await statusOf(f, id), EscrowStatus.Funded);
    assert.equal(await f.usdc.read.balanceOf([f.escrow.address]), AMOUNT);
  });
});
