import { useSwitchChain } from "wagmi";
import { ErrorNote } from "../components/states.tsx";
import { chainOf } from "./config.ts";

/** The wallet is on another chain than the marketplace: say which, and offer to switch. */
export function WrongNetwork({ walletChainId, expectedChainId }: { walletChainId: number; expectedChainId: number }) {
  const switchChain = useSwitchChain();
  const expected = chainOf(expectedChainId);
  return (
    <div role="alert" className="error-note">
      <p>
        <strong>Wrong network.</strong> Your wallet is on chain {walletChainId}; this marketplace runs on{" "}
        {expected.name} (chain {expectedChainId}).
      </p>
      <button
        type="button"
        aria-busy={switchChain.isPending}
        disabled={switchChain.isPending}
        onClick={() => switchChain.mutate({ chainId: expectedChainId })}
      >
        Switch network
      </button>
      {switchChain.isError && <ErrorNote error={switchChain.error} />}
    </div>
  );
}
