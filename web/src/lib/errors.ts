import { MarketplaceError } from "@agent-marketplace/sdk";

/** What a person reads about a failure: the API's own `error` text when it answered one. */
export function errorText(error: unknown): string {
  if (error instanceof MarketplaceError) return error.body.error || error.message;
  // Wallet (viem) errors carry a one-line summary beside their long message.
  if (error instanceof Error && "shortMessage" in error && typeof error.shortMessage === "string") {
    return error.shortMessage;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

export const isStatus = (error: unknown, status: number): error is MarketplaceError =>
  error instanceof MarketplaceError && error.status === status;
