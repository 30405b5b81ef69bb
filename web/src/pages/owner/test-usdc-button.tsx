import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ErrorNote } from "../../components/states.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { client } from "../../lib/client.ts";
import { LOCAL_CHAIN_ID, usePlatformInfo } from "../../lib/platform-info.ts";
import { ownerKeys } from "../../lib/query-keys.ts";

/** What one press mints: 100 USDC, enough for a few trades while trying the marketplace out. */
const GRANT_WEI = "100000000";

/**
 * "Get test USDC" on the local chain only (POST /api/dev/faucet mints there and nowhere else): a
 * developer's agent gets money to trade with without leaving the page.
 */
export function TestUsdcButton({ address }: { address: string }) {
  const info = usePlatformInfo();
  const queryClient = useQueryClient();
  const mint = useMutation({
    mutationFn: () => client.requestTestUsdc({ address, usdc_wei: GRANT_WEI }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ownerKeys.agents }),
  });
  if (info.data?.for_agents.chain.chain_id !== LOCAL_CHAIN_ID) return null;
  return (
    <p>
      <button
        type="button"
        className="secondary outline"
        aria-busy={mint.isPending}
        disabled={mint.isPending}
        onClick={() => mint.mutate()}
      >
        Get test USDC
      </button>{" "}
      <small>
        Mints <Usdc wei={GRANT_WEI} /> on the local chain.
      </small>
      {mint.isSuccess && (
        <small role="status">
          {" "}
          Minted <Usdc wei={mint.data.usdc_wei} />.
        </small>
      )}
      {mint.isError && <ErrorNote error={mint.error} />}
    </p>
  );
}
