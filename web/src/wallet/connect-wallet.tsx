import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useConnect, useConnectors } from "wagmi";
import { ErrorNote } from "../components/states.tsx";
import { BROWSER_WALLET_ID, DEV_WALLET_ID } from "./config.ts";
import { devWallet } from "./dev-wallet.ts";

/**
 * Choose a wallet: the browser's (an extension, or whatever provides window.ethereum), or on the
 * local chain the dev wallet as one of the node's accounts.
 */
export function ConnectWallet({
  preferredAccount,
}: {
  /** The dev account to offer first (the agent's wallet, when sending for it). */
  preferredAccount?: string;
}) {
  const connectors = useConnectors();
  const connect = useConnect();
  const browser = connectors.find((connector) => connector.id === BROWSER_WALLET_ID);
  const dev = connectors.find((connector) => connector.id === DEV_WALLET_ID);
  const hasBrowserWallet = typeof window !== "undefined" && "ethereum" in window;

  function connectWith(connector: NonNullable<typeof browser>) {
    // A refusal shows below (connect.error); what follows a connection is the caller's.
    connect.mutate({ connector });
  }

  return (
    <div className="connect-wallet">
      <h3>Choose a wallet</h3>
      {browser && (
        <p>
          <button type="button" disabled={!hasBrowserWallet || connect.isPending} onClick={() => connectWith(browser)}>
            Browser wallet
          </button>
          {!hasBrowserWallet && <small> No browser wallet was found in this browser.</small>}
        </p>
      )}
      {dev && (
        <DevWalletChoice pending={connect.isPending} preferred={preferredAccount} onUse={() => connectWith(dev)} />
      )}
      {connect.isError && <ErrorNote error={connect.error} />}
    </div>
  );
}

function DevWalletChoice({ pending, preferred, onUse }: { pending: boolean; preferred?: string; onUse: () => void }) {
  const accounts = useQuery({ queryKey: ["dev-wallet", "accounts"], queryFn: () => devWallet.nodeAccounts() });
  const [chosen, setChosen] = useState("");
  const offered = accounts.data?.find((address) => address.toLowerCase() === preferred?.toLowerCase());
  const account = chosen || offered || accounts.data?.[0] || "";
  return (
    <fieldset>
      <legend>Dev wallet (local chain only: the node's unlocked accounts sign)</legend>
      {accounts.isError ? (
        <ErrorNote error={accounts.error} />
      ) : (
        <>
          <label>
            Dev account
            <select value={account} onChange={(event) => setChosen(event.target.value)} disabled={!accounts.data}>
              {(accounts.data ?? []).map((address, index) => (
                <option key={address} value={address}>
                  #{index} {address}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            disabled={!account || pending}
            onClick={() => {
              devWallet.chooseAccount(account);
              onUse();
            }}
          >
            Dev wallet
          </button>
        </>
      )}
    </fieldset>
  );
}
