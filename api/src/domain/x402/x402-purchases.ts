import { escrowIdOf } from "@agent-marketplace/contracts";
import { uuidOfEscrowId } from "@agent-marketplace/indexer";
import { PaymentPayloadV2Schema } from "@x402/core/schemas";
import type { PaymentRequired, PaymentRequirements, ResourceInfo, SettleResponse } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { eq, sql } from "drizzle-orm";
import { getAddress, type Hex } from "viem";
import { z } from "zod";
import type { TransferAuthorization } from "../../chain/x402-chain.ts";
import type { StoredTransferAuthorization } from "../../db/column-values.ts";
import { agents, listings, receiptTokens, relayedTransactions, transactions, x402Payments } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { badRequest, ConflictError, conflict, notFound } from "../shared/errors.ts";
import { isUuid } from "../shared/ids.ts";
import { DEFAULT_DELIVERY_HOURS } from "../shared/listing-terms.ts";
import { awaitIndexed, type IndexedWrite, transactionWrite } from "../shared/read-your-writes.ts";
import { createSettlement } from "../shared/settlement.ts";
import { countPurchase } from "../transactions/escrow-funding.ts";
import { escrowIdOfRow } from "../transactions/escrow-id.ts";
import type { TransactionState } from "../transactions/transaction-state.ts";
import { findTransaction, stateOfRow } from "../transactions/transactions.ts";
import {
  MAX_TIMEOUT_SECONDS,
  networkOf,
  paymentRequired,
  paymentRequirements,
  requirementsMismatch,
  VALID_BEFORE_SLACK_SECONDS,
  X402_VERSION,
} from "./payment-requirements.ts";
import { issueReceiptToken } from "./receipt-tokens.ts";
import { agentOfPayer } from "./x402-buyers.ts";
import { SettlementPendingError, X402PaymentError } from "./x402-errors.ts";

/*
 * x402 on every FIXED listing: the listing's payment requirements (the 402), and a payment a stock
 * x402 client presents settled into the listing's escrow. The payment is checked with @x402/core's
 * schema and @x402/evm's exact-scheme verification (signature, payee, amount, validity, the
 * token's own simulation of the transfer), then the relayer, the escrow's operator, sends
 * fundWithTransfer through its outbox: the transaction, the payment and the request's receipt token
 * are recorded with the signed send, so a crash between the chain's acceptance and the answer
 * heals by the relayer's resume, and a settlement the chain refuses records nothing.
 *
 * The authorization's nonce is the idempotency key: the escrow is escrowIdOf(payer, nonce) and the
 * transaction's id is derived from it (uuidOfEscrowId, as the indexer names the escrow), so one
 * authorization is one escrow and one transaction however many requests present it. A request
 * presenting a payment whose settlement is under way (a client's retry after a timeout) gets a
 * receipt token of its own and the settlement's answer; one presenting a payment already settled
 * gets the transaction (200) and no token, since the authorization is public from then on (it is
 * in the settlement's calldata). A payment someone submitted to the token directly (front-run) is
 * settled without moving funds once its transfer to the escrow is found, and answered without a
 * token for the same reason: its buyer acts by signing in with the paying wallet.
 */

type Listing = typeof listings.$inferSelect;
type Agent = typeof agents.$inferSelect;
/** A recorded payment, as a request presenting its nonce again finds it. */
type Recorded = typeof x402Payments.$inferSelect;

/** What an x402 purchase answers (201 for the settlement, 200 for a payment settled before). */
export interface X402PurchaseView {
  transaction_id: string;
  /** The transaction's uuid, as the other purchase answers name the escrow. */
  escrow_id: string;
  escrow_id_bytes32: string;
  listing_id: string;
  buyer_agent_id: string;
  /** The wallet that signed the payment: the escrow's buyer. */
  payer: string;
  seller_address: string;
  amount_wei: string;
  currency: "USDC";
  deadline: string;
  state: TransactionState;
  /** The relayer's fundWithTransfer. */
  tx_hash: string;
  /** Only for a request that presented the payment while it was being settled: shown once. */
  receipt_token?: string;
  message: string;
}

export interface X402Outcome {
  /** True when the payment was settled for this request (201); false when it was settled before (200). */
  settled: boolean;
  purchase: X402PurchaseView;
  /** The PAYMENT-RESPONSE header's settlement. */
  settlement: SettleResponse;
}

/** A PAYMENT-SIGNATURE header as the route read it: decoded JSON, or not decodable at all. */
export type PresentedPayment = { decoded: unknown } | { undecodable: true };

const MAX_UINT256 = 2n ** 256n - 1n;
const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an address");
const Uint256 = z
  .string()
  .regex(/^\d{1,78}$/, "a decimal integer")
  .refine((value) => BigInt(value) <= MAX_UINT256, "at most 2^256 - 1");
/**
 * The exact scheme's EIP-3009 payload (`ExactEIP3009Payload` of @x402/evm), checked before anything
 * reads it: the package types it and leaves its shape to whoever receives it.
 */
const Eip3009Payload = z.object({
  authorization: z.object({
    from: Address,
    to: Address,
    value: Uint256,
    validAfter: Uint256,
    validBefore: Uint256,
    nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "32 bytes of hex"),
  }),
  // 65 bytes for a wallet's key; an ERC-1271 wallet's may be longer, within reason.
  signature: z.string().regex(/^0x(?:[0-9a-fA-F]{2}){65,1024}$/, "a hex signature"),
});

/** A settlement another request racing this one for the same nonce recorded first: answer that one. */
class RecordedElsewhere extends Error {}

/** The relayer's confirm gave up waiting for the receipt (chain/relayer.ts). */
const NO_RECEIPT = /^no receipt for /;

export function x402Purchases(
  deps: Pick<Deps, "db" | "config" | "chain" | "escrow" | "relayer" | "indexed" | "logger">,
) {
  const { db, config, chain, escrow, relayer } = deps;
  const settle = createSettlement(deps);
  const x402 = chain.x402;
  const facilitator = new ExactEvmScheme(x402.facilitatorSigner);

  /** The FIXED listing and its seller: 404 for no such listing, 400 for a BOUNTY. */
  async function listingWithSeller(listingId: string): Promise<{ listing: Listing; seller: Agent }> {
    if (!isUuid(listingId)) throw notFound("Listing");
    const [found] = await db
      .select({ listing: listings, seller: agents })
      .from(listings)
      .innerJoin(agents, eq(agents.id, listings.agentId))
      .where(eq(listings.id, listingId));
    if (!found) throw notFound("Listing");
    if (found.listing.listingType !== "FIXED") {
      throw badRequest("x402 pays for FIXED listings only: a BOUNTY is claimed, not bought");
    }
    return found;
  }

  /** 409 unless the listing takes a purchase now (as the buy route refuses one). */
  function refuseUnsellable({ listing, seller }: { listing: Listing; seller: Agent }): void {
    if (listing.closedAt !== null) {
      throw new ConflictError(
        "This listing was deleted: it is not for sale",
        { listing_id: listing.id },
        "listing_closed",
      );
    }
    if (!listing.isActive) throw conflict("This listing is not active", { listing_id: listing.id });
    if (!seller.isActive || seller.isPaused) throw conflict("The seller is not taking orders now");
  }

  async function requirementsOf({
    listing,
    seller,
  }: {
    listing: Listing;
    seller: Agent;
  }): Promise<PaymentRequirements> {
    return paymentRequirements({
      chainId: chain.chainId,
      usdc: escrow.usdc,
      escrow: escrow.escrow,
      token: await x402.tokenDomain(),
      listing,
      sellerWallet: getAddress(seller.walletAddress),
      deadlineHours: DEFAULT_DELIVERY_HOURS,
      disputeWindowSeconds: config.disputeWindowSeconds,
    });
  }

  function resourceOf(listing: Listing, url: string): ResourceInfo {
    return {
      url,
      description: `${listing.title}: paid into escrow (delivery, a dispute window, auto-release)`,
      mimeType: "application/json",
    };
  }

  /** The answer's view of the payment's transaction, read once its escrow is indexed. */
  async function purchaseView(payment: Recorded, sellerWallet: string, message: string, receiptToken?: string) {
    const row = await findTransaction(db, chain.chainId, payment.transactionId);
    const t = row.transaction;
    const view: X402PurchaseView = {
      transaction_id: t.id,
      escrow_id: t.id,
      escrow_id_bytes32: escrowIdOfRow(t, row.buyerWallet),
      listing_id: payment.listingId,
      buyer_agent_id: t.buyerAgentId,
      payer: payment.payer,
      seller_address: getAddress(sellerWallet),
      amount_wei: t.amountWei,
      currency: "USDC",
      deadline: t.deadline.toISOString(),
      state: stateOfRow(row),
      tx_hash: payment.settlementTxHash,
      ...(receiptToken && { receipt_token: receiptToken }),
      message,
    };
    return view;
  }

  function settlementOf(payment: Recorded): SettleResponse {
    return {
      success: true,
      transaction: payment.settlementTxHash,
      network: networkOf(chain.chainId),
      payer: payment.payer,
      amount: payment.authorization.value,
    };
  }

  /** What this request's answer says of its receipt token (or why it has none). */
  function messageOf(token: string | undefined, payment: Recorded, settledNow: boolean): string {
    if (token) {
      return "Paid into escrow. Send Authorization: Bearer <receipt_token> on this transaction's routes (read it, the deliverable, release, dispute, evidence, review); it is shown once.";
    }
    const signIn =
      "act as its buyer by signing in with the paying wallet (or take its agent over with the key challenge)";
    return settledNow && payment.frontRun
      ? `Paid into escrow. The authorization had been submitted to the token directly, so it is public and earns no receipt token: ${signIn}.`
      : `This payment was settled before; nothing was paid again. A receipt token goes only to the request that paid: ${signIn}.`;
  }

  async function recorded(transactionId: string): Promise<Recorded | undefined> {
    const [found] = await db.select().from(x402Payments).where(eq(x402Payments.transactionId, transactionId));
    return found;
  }

  /** Forgets a payment whose settlement failed (reverted, or its send dropped), as if never presented. */
  async function forget(payment: Recorded): Promise<void> {
    await db.transaction(async (tx) => {
      const [gone] = await tx
        .delete(x402Payments)
        .where(eq(x402Payments.transactionId, payment.transactionId))
        .returning({ id: x402Payments.transactionId });
      if (!gone) return;
      await tx.delete(receiptTokens).where(eq(receiptTokens.transactionId, payment.transactionId));
      await tx.delete(transactions).where(eq(transactions.id, payment.transactionId));
      await tx
        .update(listings)
        .set({ timesPurchased: sql`greatest(${listings.timesPurchased} - 1, 0)` })
        .where(eq(listings.id, payment.listingId));
    });
  }

  /** The write a settlement's answer waits for: its Funded event indexed (naming this request's token if late). */
  function fundedWrite(transactionId: string, token: string | undefined): IndexedWrite {
    const write = transactionWrite("Funded", transactionId);
    return token ? { ...write, details: { ...write.details, receipt_token: token } } : write;
  }

  function pending(payment: Recorded, token: string | undefined): SettlementPendingError {
    return new SettlementPendingError(
      `The settlement ${payment.settlementTxHash} is sent and not mined yet: present the same payment again shortly (it is never paid twice)`,
      {
        transaction_id: payment.transactionId,
        tx_hash: payment.settlementTxHash,
        ...(token && { receipt_token: token }),
      },
    );
  }

  /**
   * A payment recorded before (by an earlier request, or one racing this one): settled, answered
   * as it is, without a token; under way, answered once mined, with a receipt token for this request
   * (none for a front-run payment); failed, forgotten: undefined, to settle it afresh.
   */
  async function answerRecorded(
    payment: Recorded,
    presented: StoredTransferAuthorization,
    sellerWallet: string,
    refuse: (reason: string, message: string) => X402PaymentError,
  ): Promise<X402Outcome | undefined> {
    if (!sameAuthorization(payment.authorization, presented)) {
      throw conflict("Another authorization with this nonce was settled: nothing was paid", {
        transaction_id: payment.transactionId,
      });
    }
    const txHash = payment.settlementTxHash as Hex;
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
    if (receipt) {
      if (receipt.status !== "success") {
        await forget(payment);
        return undefined;
      }
      await awaitIndexed(deps.indexed, receipt.blockNumber, fundedWrite(payment.transactionId, undefined));
      return {
        settled: false,
        purchase: await purchaseView(payment, sellerWallet, messageOf(undefined, payment, false)),
        settlement: settlementOf(payment),
      };
    }
    const [send] = await db
      .select({ status: relayedTransactions.status })
      .from(relayedTransactions)
      .where(eq(relayedTransactions.txHash, txHash));
    if (send?.status === "dropped" || send?.status === "reverted") {
      await forget(payment);
      return undefined;
    }
    // Under way: this request presented it before it was mined, as the one that sent it did.
    const token = payment.frontRun ? undefined : await issueReceiptToken(db, payment.transactionId);
    const mined = await relayer.confirm(txHash).catch((error: unknown) => {
      if (error instanceof Error && NO_RECEIPT.test(error.message)) throw pending(payment, token);
      throw error;
    });
    if (mined.status !== "success") {
      await forget(payment);
      throw refuse("settlement_reverted", `The settlement ${txHash} reverted: nothing was paid`);
    }
    await awaitIndexed(deps.indexed, mined.blockNumber, fundedWrite(payment.transactionId, token));
    return {
      settled: true,
      purchase: await purchaseView(payment, sellerWallet, messageOf(token, payment, true), token),
      settlement: settlementOf(payment),
    };
  }

  return {
    /**
     * The listing's payment requirements (the 402 answer): 404 for no such listing, 400 for a
     * BOUNTY, 409 while it cannot be bought.
     */
    async requirements(listingId: string, resourceUrl: string): Promise<PaymentRequired> {
      const found = await listingWithSeller(listingId);
      refuseUnsellable(found);
      return paymentRequired(
        await requirementsOf(found),
        resourceOf(found.listing, resourceUrl),
        "Payment required: pay this listing's price into its escrow (the exact scheme, USDC on this chain)",
      );
    },

    /**
     * Settles `presented` (a stock x402 client's payment) into an escrow for the listing, or answers
     * the payment settled before. 402 `payment_invalid` (with the requirements) for a payment that
     * cannot be settled: nothing is recorded then.
     */
    async pay(listingId: string, presented: PresentedPayment, resourceUrl: string): Promise<X402Outcome> {
      const found = await listingWithSeller(listingId);
      const { listing, seller } = found;
      const sellerWallet = getAddress(seller.walletAddress);
      const requirements = await requirementsOf(found);
      const resource = resourceOf(listing, resourceUrl);
      const refuse = (reason: string, message: string) =>
        new X402PaymentError(reason, message, paymentRequired(requirements, resource, reason));

      if ("undecodable" in presented) {
        throw refuse("invalid_payload", "PAYMENT-SIGNATURE is not the base64 JSON of an x402 payment payload");
      }
      const parsed = PaymentPayloadV2Schema.safeParse(presented.decoded);
      if (!parsed.success) {
        const version =
          typeof presented.decoded === "object" && presented.decoded !== null && "x402Version" in presented.decoded
            ? presented.decoded.x402Version
            : undefined;
        throw version !== undefined && version !== X402_VERSION
          ? refuse("invalid_x402_version", `This endpoint speaks x402 version ${X402_VERSION}`)
          : refuse("invalid_payload", `The payment payload is not x402 v2: ${parsed.error.issues[0]?.message ?? ""}`);
      }
      const { accepted } = parsed.data;
      const inner = Eip3009Payload.safeParse(parsed.data.payload);
      if (!inner.success) {
        const issue = inner.error.issues[0];
        throw refuse(
          "invalid_payload",
          `The payment is not an EIP-3009 authorization of the exact scheme (${issue?.path.join(".")}: ${issue?.message})`,
        );
      }
      const signed = inner.data;
      const payer = getAddress(signed.authorization.from);
      const nonce = signed.authorization.nonce.toLowerCase() as Hex;
      const presentedAuthorization: StoredTransferAuthorization = {
        from: payer,
        to: getAddress(signed.authorization.to),
        value: BigInt(signed.authorization.value).toString(),
        validAfter: BigInt(signed.authorization.validAfter).toString(),
        validBefore: BigInt(signed.authorization.validBefore).toString(),
        nonce,
        signature: signed.signature.toLowerCase(),
      };
      const transactionId = uuidOfEscrowId(escrowIdOf(payer, nonce));

      // The nonce names the payment: presented again, it is answered as recorded.
      for (let attempt = 0; attempt < 3; attempt++) {
        const earlier = await recorded(transactionId);
        if (earlier) {
          if (earlier.listingId !== listing.id) {
            throw conflict("This payment was settled for another listing: nothing was paid", {
              transaction_id: transactionId,
              listing_id: earlier.listingId,
            });
          }
          const answer = await answerRecorded(earlier, presentedAuthorization, sellerWallet, refuse);
          if (answer) return answer;
        }
        try {
          return await settleNew();
        } catch (error) {
          // Another request recorded this nonce's settlement first: answer that one.
          if (error instanceof RecordedElsewhere || isUniqueViolation(error)) continue;
          throw error;
        }
      }
      throw conflict("This payment is being settled by another request: present it again shortly", {
        transaction_id: transactionId,
      });

      /**
       * `refusal`, unless this payment's settlement was recorded meanwhile by a request racing this
       * one: then that settlement is the answer (the loop above answers it as recorded).
       */
      async function unlessRecorded(refusal: Error): Promise<Error> {
        return (await recorded(transactionId)) ? new RecordedElsewhere() : refusal;
      }

      /** Checks the payment against the listing and the chain, then settles it into a new escrow. */
      async function settleNew(): Promise<X402Outcome> {
        refuseUnsellable(found);
        const mismatch = requirementsMismatch(requirements, {
          ...accepted,
          network: accepted.network as PaymentRequirements["network"],
          extra: accepted.extra ?? {},
        });
        if (mismatch) {
          throw refuse(mismatch, `The payment was made for other requirements than this listing's (${mismatch})`);
        }
        if (payer === sellerWallet) throw badRequest("An agent cannot buy its own listing");
        const authorization: TransferAuthorization = {
          from: payer,
          value: BigInt(presentedAuthorization.value),
          validAfter: BigInt(presentedAuthorization.validAfter),
          validBefore: BigInt(presentedAuthorization.validBefore),
          nonce,
          signature: signed.signature as Hex,
        };
        if (authorization.value !== BigInt(requirements.amount)) {
          throw refuse(
            "amount_mismatch",
            `The authorization pays ${authorization.value} wei; the listing costs ${requirements.amount}`,
          );
        }
        if (presentedAuthorization.to !== escrow.escrow) {
          throw refuse(
            "recipient_mismatch",
            `The authorization pays ${presentedAuthorization.to}, not the escrow ${escrow.escrow}`,
          );
        }
        const now = await escrow.now();
        const use = await x402.authorizationUse(authorization);
        if (use.used && !use.transfer) {
          throw await unlessRecorded(
            refuse("invalid_exact_evm_nonce_already_used", `This authorization cannot be settled: ${use.reason}`),
          );
        }
        if (!use.used) {
          if (authorization.validBefore > BigInt(now + MAX_TIMEOUT_SECONDS + VALID_BEFORE_SLACK_SECONDS)) {
            throw refuse(
              "authorization_too_long",
              `The authorization is valid until ${authorization.validBefore}: at most ${MAX_TIMEOUT_SECONDS} s from now is asked (maxTimeoutSeconds)`,
            );
          }
          const verified = await facilitator.verify(
            { x402Version: X402_VERSION, accepted: requirements, payload: signed },
            requirements,
          );
          if (!verified.isValid) {
            const reason = verified.invalidReason ?? "invalid_payment";
            const detail = verified.invalidMessage ? ` (${verified.invalidMessage.split("\n")[0]})` : "";
            // Another request may have settled it since this one looked (the token then refuses it).
            throw await unlessRecorded(refuse(reason, `The payment did not verify: ${reason}${detail}`));
          }
        }
        return settleInto(authorization, use.used, now);
      }

      /**
       * Sends fundWithTransfer; the payment's rows (the buyer agent if it is new, the transaction,
       * the payment, this request's receipt token) commit with the relayer's record of the send.
       */
      async function settleInto(authorization: TransferAuthorization, frontRun: boolean, now: number) {
        const deadline = new Date((now + DEFAULT_DELIVERY_HOURS * 3600) * 1000);
        const payment: Recorded = {
          transactionId,
          payer,
          nonce,
          listingId: listing.id,
          authorization: presentedAuthorization,
          settlementTxHash: "",
          frontRun,
          createdAt: new Date(),
        };
        let token: string | undefined;
        const call = x402.relayedTransferFunding(
          sellerWallet,
          Math.floor(deadline.getTime() / 1000),
          config.disputeWindowSeconds,
          authorization,
        );
        const sent = await settle(call, {
          transactionId,
          record: async (tx, { txHash }) => {
            const buyer = await agentOfPayer(tx, payer);
            if (!buyer.isActive) throw conflict("The agent of this wallet is deactivated: it cannot buy");
            const row = {
              id: transactionId,
              listingId: listing.id,
              buyerAgentId: buyer.id,
              sellerAgentId: seller.id,
              amountWei: presentedAuthorization.value,
              currency: "USDC",
              description: listing.title,
              deadline,
              disputeWindowSeconds: config.disputeWindowSeconds,
              createdAt: new Date(),
              escrowRef: nonce,
            };
            await tx.insert(transactions).values(row);
            payment.settlementTxHash = txHash;
            await tx.insert(x402Payments).values(payment);
            if (!frontRun) token = await issueReceiptToken(tx, transactionId);
            await countPurchase(tx, row);
          },
          refused: (reason) =>
            unlessRecorded(refuse("settlement_refused", `The escrow refused the payment: ${reason}`)),
        }).catch((error: unknown) => {
          if (error instanceof Error && NO_RECEIPT.test(error.message) && payment.settlementTxHash) {
            throw pending(payment, token);
          }
          throw error;
        });
        if (sent.receipt.status !== "success") {
          await forget(payment);
          throw refuse("settlement_reverted", `The settlement ${sent.txHash} reverted: nothing was paid`);
        }
        await awaitIndexed(deps.indexed, sent.receipt.blockNumber, fundedWrite(transactionId, token));
        deps.logger.info({ transaction_id: transactionId, front_run: frontRun }, "x402 payment settled");
        return {
          settled: true,
          purchase: await purchaseView(payment, sellerWallet, messageOf(token, payment, true), token),
          settlement: settlementOf(payment),
        };
      }
    },
  };
}

/** Whether two authorizations are the same signed transfer. */
function sameAuthorization(a: StoredTransferAuthorization, b: StoredTransferAuthorization): boolean {
  return (Object.keys(a) as (keyof StoredTransferAuthorization)[]).every(
    (key) => a[key].toLowerCase() === b[key].toLowerCase(),
  );
}

/** A unique index refused an insert (Postgres 23505), however drizzle wraps it. */
function isUniqueViolation(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth++) {
    if ((cause as { code?: unknown }).code === "23505") return true;
  }
  return false;
}

export type X402Purchases = ReturnType<typeof x402Purchases>;
