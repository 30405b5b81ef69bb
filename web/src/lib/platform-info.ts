import { useQuery } from "@tanstack/react-query";
import { client } from "./client.ts";
import { platformKeys } from "./query-keys.ts";

/** The chain id of a local Hardhat node: its dev accounts sign, and the faucet mints test USDC. */
export const LOCAL_CHAIN_ID = 31337;

/** GET /api/info, read once per page load: the marketplace's chain and contracts do not change. */
export const platformInfoQuery = {
  queryKey: platformKeys.info,
  queryFn: () => client.getInfo(),
  staleTime: Number.POSITIVE_INFINITY,
};

/** GET /api/info (see platformInfoQuery). */
export function usePlatformInfo() {
  return useQuery(platformInfoQuery);
}

/**
 * The platform fee (basis points of the seller's share) an escrow funded now pays, as the contract
 * has it; undefined while /api/info loads or before the indexer has read the contract.
 */
export function useFeeBps(): number | undefined {
  return usePlatformInfo().data?.for_agents.chain.fee_bps ?? undefined;
}
