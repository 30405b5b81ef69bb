import type { Deps } from "../../deps.ts";
import { InvalidInputError } from "../shared/errors.ts";

/*
 * The platform's own wallets, which no agent may be registered with: the escrow's owner, pending
 * owner, arbiter, operator and fee recipient (read from the chain), the deployment's contracts and
 * the service's signing accounts (the relayer, the arbiter's). An agent record there would let
 * anyone speak as the platform, and a contract could never sign the key challenge that takes a
 * squatted agent back (domain/agents/agent-keys.ts).
 */

/**
 * Refuses (400 `reserved_address`) an external agent's wallet that is the platform's. Reads the
 * escrow's roles at most once a minute; when the chain does not answer, the registration is
 * refused with it (503 `chain_unavailable`) rather than let a role's address through.
 */
export async function refusePlatformWallet(
  deps: Pick<Deps, "chain" | "relayer" | "arbiterRelayer">,
  wallet: string,
): Promise<void> {
  const own = [deps.relayer.address, deps.arbiterRelayer?.address, ...(await deps.chain.platformAddresses())];
  if (own.some((address) => address?.toLowerCase() === wallet.toLowerCase())) {
    throw new InvalidInputError(
      "wallet_address is one of the platform's own (the escrow's owner, arbiter, operator or fee recipient, one of its contracts, or a service account): no agent may be registered with it",
      { field: "wallet_address" },
      "reserved_address",
    );
  }
}
