import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { PaymentRequiredV2Schema } from "@x402/core/schemas";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { type Address, getAddress, type Hex, isAddress } from "viem";
import { custodialAccount } from "../../chain/custodial-wallet.ts";
import type { agents } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { badRequest, DomainError } from "../shared/errors.ts";
import { formatUsdc } from "../shared/money.ts";
import { networkOf } from "../x402/payment-requirements.ts";
import { type AwaitingApproval, awaitingApproval } from "./approval-requests.ts";
import { balanceReservations } from "./balance-reservations.ts";
import { cappedMoveOf, type SpendOrigin } from "./spending-caps.ts";

/*
 * x402 payments a hosted agent makes as a buyer. A hosted agent has no key of its own to sign an
 * x402 payment with: it hands the service the PAYMENT-REQUIRED a service answered it (any x402
 * service, this marketplace's listings included), and the service signs the payment with the
 * agent's custodial key, as the stock exact-scheme client would (@x402/evm's ExactEvmScheme), for
 * USDC on this chain only: the one asset a hosted wallet holds. The agent sends the answer as the
 * PAYMENT-SIGNATURE header of its request again.
 *
 * Signing is a money move like any other the service makes for the agent: judged against its
 * owner's spending caps and its balance, less what its other moves in flight will take, under the
 * wallet's lock (balance-reservations.ts reserveSigned). The signature leaves the service only once
 * that has passed: over a cap 402 `spending_limit`, above the approval threshold 202 (the owner's
 * approval signs it then, with a validity that starts then), short 402 `insufficient_balance`. The
 * payment counts in the day's spending from the moment it is signed, used or not: its payee may
 * settle it until it expires, and the reservation holds the balance until the token records it
 * used or it expires. Its validity is at most MAX_SIGNED_VALIDITY_SECONDS, whatever the payee asks,
 * so no signed payment holds an agent's balance for long.
 */

type Agent = typeof agents.$inferSelect;

/** The longest a signed payment stays valid: a payee asking longer gets this. */
export const MAX_SIGNED_VALIDITY_SECONDS = 600;

/** The largest PAYMENT-REQUIRED accepted (a header value: base64 JSON). */
export const MAX_PAYMENT_REQUIRED_LENGTH = 16_384;

/** What signing answers: the header to send, and the payment it carries. */
export interface SignedX402Payment {
  /** The PAYMENT-SIGNATURE header's value: send it with the request that answered 402. */
  payment_signature: string;
  header: "PAYMENT-SIGNATURE";
  x402_version: 2;
  /** The agent's wallet: the payment's `from`. */
  payer: Address;
  pay_to: Address;
  amount_wei: string;
  amount_usdc: string;
  network: string;
  asset: Address;
  /** The authorization's nonce (the token records it used once settled). */
  nonce: Hex;
  /** When the payment stops being valid (its validBefore). */
  valid_before: string;
  /** The resource the payee named, if any. */
  resource_url: string | null;
}

export interface SignX402Input {
  agent: Agent;
  /** The payee's PAYMENT-REQUIRED: the header's value (base64) or its decoded JSON. */
  paymentRequired: unknown;
  origin: SpendOrigin;
}

/** The payee asks for nothing this service can sign: 400 `x402_unpayable`, nothing signed. */
export class X402UnpayableError extends DomainError {
  constructor(reason: string, details: Record<string, unknown>) {
    super(`Cannot pay this x402 request: ${reason}`, "x402_unpayable", details);
  }
}

/** The PAYMENT-REQUIRED `value` as an x402 v2 object, or 400 saying why not. */
export function parsePaymentRequired(value: unknown): PaymentRequired {
  let decoded = value;
  if (typeof value === "string") {
    if (value.length > MAX_PAYMENT_REQUIRED_LENGTH) {
      throw badRequest(`payment_required is longer than ${MAX_PAYMENT_REQUIRED_LENGTH} characters`);
    }
    try {
      decoded = decodePaymentRequiredHeader(value);
    } catch {
      throw badRequest("payment_required is not a PAYMENT-REQUIRED header value (base64 of x402 JSON)");
    }
  }
  const parsed = PaymentRequiredV2Schema.safeParse(decoded);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
    throw badRequest(`payment_required is not an x402 v2 PAYMENT-REQUIRED${where}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data as PaymentRequired;
}

const MAX_UINT256 = 2n ** 256n - 1n;

/** The first requirement this service can pay: exact, EIP-3009, USDC on this chain, a real amount. */
export function payableRequirement(
  paymentRequired: PaymentRequired,
  ours: { network: string; usdc: Address; payer: Address },
): PaymentRequirements | undefined {
  return paymentRequired.accepts.find((requirement) => {
    if (requirement.scheme !== "exact" || requirement.network !== ours.network) return false;
    if (!isAddress(requirement.asset) || getAddress(requirement.asset) !== ours.usdc) return false;
    const method = requirement.extra?.assetTransferMethod;
    if (method !== undefined && method !== "eip3009") return false;
    if (!isAddress(requirement.payTo) || getAddress(requirement.payTo) === ours.payer) return false;
    if (!/^\d{1,78}$/.test(requirement.amount)) return false;
    const amount = BigInt(requirement.amount);
    return amount > 0n && amount <= MAX_UINT256 && requirement.maxTimeoutSeconds > 0;
  });
}

export function x402Signing(deps: Deps) {
  const { chain, config } = deps;
  const reservations = balanceReservations(deps);
  const x402 = chain.x402;
  const network = networkOf(chain.chainId);
  const usdc = getAddress(x402.usdc);

  /**
   * Signs the payment `paymentRequired` asks of a hosted `agent`, once its caps and balance allow
   * (see the module's comment): the PAYMENT-SIGNATURE to send, or the approval it waits for.
   */
  async function sign({
    agent,
    paymentRequired,
    origin,
  }: SignX402Input): Promise<SignedX402Payment | AwaitingApproval> {
    if (!agent.hosted || !agent.encryptedPrivateKey) {
      throw badRequest("Only hosted agents have the service sign x402 payments; an external agent signs its own");
    }
    const payer = getAddress(agent.walletAddress);
    const required = parsePaymentRequired(paymentRequired);
    const requirement = payableRequirement(required, { network, usdc, payer });
    if (!requirement) {
      throw new X402UnpayableError(
        `none of its ${required.accepts.length} payment options is the exact scheme in USDC on ${network} to another address (EIP-3009)`,
        { network, asset: usdc, scheme: "exact" },
      );
    }
    const amount = BigInt(requirement.amount);
    const token = await x402.tokenDomain();
    // Signed over the token's own EIP-712 domain (not the payee's word for it), for at most the
    // validity we allow; `accepted` echoes the payee's requirement as the stock client does.
    const signing: PaymentRequirements = {
      ...requirement,
      maxTimeoutSeconds: Math.min(requirement.maxTimeoutSeconds, MAX_SIGNED_VALIDITY_SECONDS),
      extra: { ...requirement.extra, name: token.name, version: token.version, assetTransferMethod: "eip3009" },
    };
    const scheme = new ExactEvmScheme(custodialAccount(agent, config.masterKey));
    const created = await scheme.createPaymentPayload(2, signing);
    const authorization = (created.payload as { authorization: { nonce: Hex; validBefore: string } }).authorization;
    const resourceUrl = required.resource?.url ?? null;
    const outcome = await reservations.reserveSigned(
      { wallet: payer, amountWei: amount, purpose: "x402" },
      cappedMoveOf(agent, {
        action: "x402",
        request: { payment_required: required as unknown as Record<string, unknown> },
        summary: `Pay ${resourceUrl ? resourceUrl.slice(0, 200) : getAddress(requirement.payTo)} over x402`,
        origin,
      }),
      { nonce: authorization.nonce, validBefore: BigInt(authorization.validBefore) },
    );
    if (outcome !== "reserved") return awaitingApproval(outcome.approval);
    const payload: PaymentPayload = {
      x402Version: 2,
      payload: created.payload,
      ...(required.extensions && { extensions: required.extensions }),
      resource: required.resource,
      accepted: requirement,
    };
    return {
      payment_signature: encodePaymentSignatureHeader(payload),
      header: "PAYMENT-SIGNATURE",
      x402_version: 2,
      payer,
      pay_to: getAddress(requirement.payTo),
      amount_wei: amount.toString(),
      amount_usdc: formatUsdc(amount),
      network,
      asset: usdc,
      nonce: authorization.nonce,
      valid_before: new Date(Number(authorization.validBefore) * 1000).toISOString(),
      resource_url: resourceUrl,
    };
  }

  return { sign };
}

export type X402Signing = ReturnType<typeof x402Signing>;
