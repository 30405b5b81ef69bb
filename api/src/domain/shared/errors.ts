import type { Address } from "viem";
import { formatUsdc } from "./money.ts";

/**
 * What a use case refuses, in the domain's own words. `code` is the machine-readable reason
 * clients branch on (the routes answer each code with its HTTP status, from one table), and
 * `details` go into the answer beside it.
 */
export abstract class DomainError extends Error {
  readonly code: string;
  readonly details?: Record<string, unknown>;

  constructor(message: string, code: string, details?: Record<string, unknown>) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/** The request asks for something the rules do not allow whatever the state (a bad value). */
export class InvalidInputError extends DomainError {
  constructor(message: string, details?: Record<string, unknown>, code = "bad_request") {
    super(message, code, details);
  }
}

/** No valid credential for this action. */
export class UnauthenticatedError extends DomainError {
  constructor(message = "Missing or invalid API key") {
    super(message, "unauthorized");
  }
}

/** The caller is known but this is not theirs to do. */
export class ForbiddenError extends DomainError {
  constructor(message = "Not allowed for this API key") {
    super(message, "forbidden");
  }
}

/** No such thing (or an id that cannot name one). */
export class NotFoundError extends DomainError {
  constructor(what: string) {
    super(`${what} not found`, "not_found");
  }
}

/** The thing exists but its state does not allow this now. */
export class ConflictError extends DomainError {
  constructor(message: string, details?: Record<string, unknown>, code = "conflict") {
    super(message, code, details);
  }
}

/**
 * The buyer said what price it saw (`expected_price_wei`) and the purchase would charge another:
 * nothing was sent. Carries the price that would be charged now.
 */
export class PriceChangedError extends ConflictError {
  constructor(expectedWei: string, currentWei: string) {
    super(
      `The price changed since you looked: ${formatUsdc(expectedWei)} USDC then, ${formatUsdc(currentWei)} USDC now. Nothing was bought; read the listing again and buy at the price it shows`,
      { expected_price_wei: expectedWei, current_price_wei: currentWei },
      "price_changed",
    );
  }
}

/** The chain would refuse the call (its simulation reverted): nothing was signed or sent. */
export class EscrowRefusedError extends ConflictError {}

/** The transaction was mined but reverted. */
export class TransactionRevertedError extends ConflictError {}

/** A transaction the service sent for an agent to a third-party registry reverted. */
export class RegistryRevertedError extends DomainError {}

/**
 * A wallet holds less USDC than the move needs. `balance` is what it may spend now: with `reserved`,
 * what it holds less what its sends in flight will spend (domain/wallet/balance-reservations.ts).
 */
export class InsufficientBalanceError extends DomainError {
  constructor(required: bigint, balance: bigint, wallet: Address, chainId: number, token: Address, reserved = 0n) {
    const held =
      reserved > 0n ? `${balance} wei free (${reserved} wei more held for sends in flight)` : `${balance} wei held`;
    super(`Insufficient USDC balance: ${required} wei required, ${held}`, "insufficient_balance", {
      required_wei: required.toString(),
      balance_wei: balance.toString(),
      shortfall_wei: (required - balance).toString(),
      wallet_address: wallet,
      chain_id: chainId,
      token,
    });
  }
}

/**
 * A record a refusal points to, by its id. Where it is read is the HTTP layer's to say
 * (routes/paths.ts): nothing below the routes knows a URL.
 */
export type RecordRef = { kind: "transaction"; transactionId: string } | { kind: "erc8004_identity"; agentId: string };

/** The write is on chain but the indexer has not reached its block: read again shortly. */
export class IndexerBehindError extends DomainError {
  /** The record whose read will show the write, once the indexer has its block. */
  readonly readAgain?: RecordRef;

  constructor(message: string, details?: Record<string, unknown>, readAgain?: RecordRef) {
    super(message, "indexer_behind", details);
    this.readAgain = readAgain;
  }
}

/**
 * A wallet some agent already has (409 `wallet_registered`). The holder of an external wallet may
 * take that agent over by signing the key challenge (the answer names its paths).
 */
export class WalletRegisteredError extends ConflictError {
  readonly walletAddress: string;
  /** An external wallet: its holder may take the agent over. */
  readonly canTakeOver: boolean;

  constructor(walletAddress: string, canTakeOver: boolean) {
    super(
      canTakeOver
        ? "An agent with this wallet already exists. If the wallet is yours, take the agent over by signing the key challenge: you get a new API key; every other key is revoked and the webhook removed"
        : "An agent with this wallet already exists",
      undefined,
      "wallet_registered",
    );
    this.walletAddress = walletAddress;
    this.canTakeOver = canTakeOver;
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new InvalidInputError(message, details);
export const unauthorized = (message?: string) => new UnauthenticatedError(message);
export const forbidden = (message?: string) => new ForbiddenError(message);
export const notFound = (what: string) => new NotFoundError(what);
export const conflict = (message: string, details?: Record<string, unknown>) => new ConflictError(message, details);
