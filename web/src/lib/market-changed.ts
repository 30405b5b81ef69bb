import { useQueryClient } from "@tanstack/react-query";
import { listingKeys, ownerKeys } from "./query-keys.ts";

/**
 * What a write that moves the market calls once it succeeds (a purchase, a claim, an offer's or a
 * proposal's move, a new listing, a transaction's move): listings and everything the owner reads
 * are read again.
 */
export function useMarketChanged(): () => void {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: listingKeys.all });
    void queryClient.invalidateQueries({ queryKey: ownerKeys.all });
  };
}
