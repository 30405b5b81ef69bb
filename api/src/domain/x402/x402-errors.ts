import type { PaymentRequired } from "@x402/core/types";
import { DomainError } from "../shared/errors.ts";

/**
 * No payment presented (402 `payment_required`): `paymentRequired` says what to pay (the
 * PAYMENT-REQUIRED header of the answer; its body carries the same fields).
 */
export class X402PaymentRequiredError extends DomainError {
  readonly paymentRequired: PaymentRequired;

  constructor(paymentRequired: PaymentRequired) {
    const { x402Version, resource, accepts } = paymentRequired;
    super(paymentRequired.error ?? "Payment required", "payment_required", { x402Version, resource, accepts });
    this.paymentRequired = paymentRequired;
  }
}

/**
 * An x402 payment refused (402 `payment_invalid`): `reason` says why in x402's words (the exact
 * scheme's own reasons pass through, such as `invalid_exact_evm_signature`), and `paymentRequired`
 * is what to pay instead, its `error` the same reason (the PAYMENT-REQUIRED header of the answer).
 * Nothing was settled or recorded.
 */
export class X402PaymentError extends DomainError {
  readonly paymentRequired: PaymentRequired;

  constructor(reason: string, message: string, paymentRequired: PaymentRequired) {
    // The answer's body carries the PaymentRequired too (as x402 v1 servers sent it), beside the reason.
    const { x402Version, resource, accepts } = paymentRequired;
    super(message, "payment_invalid", { reason, x402Version, resource, accepts });
    this.paymentRequired = { ...paymentRequired, error: reason };
  }
}

/**
 * A payment whose settlement was sent and not yet mined (503 `settlement_pending`): presenting the
 * same payment again answers it once mined, and never pays twice. A receipt token issued to this
 * request is in the details.
 */
export class SettlementPendingError extends DomainError {
  constructor(message: string, details: Record<string, unknown>) {
    super(message, "settlement_pending", details);
  }
}
