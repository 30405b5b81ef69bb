import { useState } from "react";
import { useConfig, useConnection, useSendTransaction } from "wagmi";
import { waitForTransactionReceipt } from "wagmi/actions";
import { Hex } from "../components/address.tsx";
import { ErrorNote, Loaded } from "../components/states.tsx";
import { usePlatformInfo } from "../lib/platform-info.ts";
import { ConnectWallet } from "./connect-wallet.tsx";
import { WrongNetwork } from "./network-check.tsx";
import { WalletRoot } from "./wallet-root.tsx";

export interface WalletCall {
  to: string;
  data: string;
  function?: string;
}

/**
 * Sends the calls the API answered for an external agent (approve + fund, or a move), one after
 * the other from the connected wallet, each mined before the next; hands the last tx hash back.
 */
export default function WalletCalls(props: {
  calls: WalletCall[];
  /** The chain the API named; the marketplace's own chain when left out. */
  chainId?: number;
  /** The agent's wallet: the calls must come from it. */
  expectedAddress?: string;
  onSent: (txHash: string) => void;
}) {
  const info = usePlatformInfo();
  return (
    <Loaded query={info} label="Reading the marketplace's chain…">
      {(platform) => {
        const chainId = props.chainId ?? platform.for_agents.chain.chain_id;
        return (
          <WalletRoot chainId={chainId}>
            <CallsSender {...props} chainId={chainId} />
          </WalletRoot>
        );
      }}
    </Loaded>
  );
}

function CallsSender({
  calls,
  chainId,
  expectedAddress,
  onSent,
}: {
  calls: WalletCall[];
  chainId: number;
  expectedAddress?: string;
  onSent: (txHash: string) => void;
}) {
  const config = useConfig();
  const connection = useConnection();
  const sendTransaction = useSendTransaction();
  const [progress, setProgress] = useState<string>();
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  if (connection.status !== "connected") return <ConnectWallet preferredAccount={expectedAddress} />;
  if (connection.chainId !== chainId) {
    return <WrongNetwork walletChainId={connection.chainId} expectedChainId={chainId} />;
  }
  const wrongAccount =
    expectedAddress !== undefined && connection.address.toLowerCase() !== expectedAddress.toLowerCase();

  async function send() {
    setBusy(true);
    setFailure(undefined);
    try {
      let last = "";
      for (const [index, call] of calls.entries()) {
        setProgress(`Sending ${index + 1} of ${calls.length}${call.function ? ` (${call.function})` : ""}…`);
        const hash = await sendTransaction.mutateAsync({
          to: call.to as `0x${string}`,
          data: call.data as `0x${string}`,
        });
        const receipt = await waitForTransactionReceipt(config, { hash, chainId });
        if (receipt.status !== "success") throw new Error(`Transaction ${hash} reverted`);
        last = hash;
      }
      setProgress(`Sent ${calls.length} of ${calls.length}.`);
      onSent(last);
    } catch (error) {
      setFailure(error);
      setProgress(undefined);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div>
      <p>
        From <Hex value={connection.address} />
      </p>
      {wrongAccount && (
        <p role="alert">
          This wallet is not the agent's (<Hex value={expectedAddress} />
          ): connect the agent's wallet to send these.
        </p>
      )}
      <button type="button" aria-busy={busy} disabled={busy || wrongAccount} onClick={() => void send()}>
        Send from wallet
      </button>
      {progress && <p role="status">{progress}</p>}
      {failure !== undefined && <ErrorNote error={failure} />}
    </div>
  );
}
