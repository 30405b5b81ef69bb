import { useQuery } from "@tanstack/react-query";
import { type RefObject, useEffect, useMemo, useRef, useState } from "react";
import { useConnect, useConnectors } from "wagmi";
import { ErrorNote } from "../components/states.tsx";
import { usePlatformInfo } from "../lib/platform-info.ts";
import { BROWSER_WALLET_ID, DEV_WALLET_ID } from "./config.ts";
import { accountText, type DevAccount, defaultDevAccount, labelDevAccounts } from "./dev-accounts.ts";
import { devAccountsQuery, devWallet } from "./dev-wallet.ts";

/**
 * Choose a wallet: the browser's (an extension, or whatever provides window.ethereum), or on the
 * local chain the dev wallet as one of the node's accounts, each named for who it is.
 */
export function ConnectWallet({
  preferredAccount,
  verb = "Connect as",
  takeFocus = false,
}: {
  /** The dev account to offer first (the agent's wallet, when sending for it). */
  preferredAccount?: string;
  /** What the dev wallet's button says before the account's name: "Sign in as" Person 1. */
  verb?: string;
  /** In a dialog: move the focus to the first control once there is one to press. */
  takeFocus?: boolean;
}) {
  const connectors = useConnectors();
  const connect = useConnect();
  const browser = connectors.find((connector) => connector.id === BROWSER_WALLET_ID);
  const dev = connectors.find((connector) => connector.id === DEV_WALLET_ID);
  const hasBrowserWallet = typeof window !== "undefined" && "ethereum" in window;
  const accounts = useDevAccounts(dev !== undefined);
  const root = useRef<HTMLDivElement>(null);
  useFocusOnArrival(root, takeFocus && (hasBrowserWallet || !dev || accounts.data !== undefined || accounts.isError));

  function connectWith(connector: NonNullable<typeof browser>) {
    // A refusal shows below (connect.error); what follows a connection is the caller's.
    connect.mutate({ connector });
  }

  return (
    <div className="connect-wallet" ref={root}>
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
        <DevWalletChoice
          accounts={accounts}
          pending={connect.isPending}
          preferred={preferredAccount}
          verb={verb}
          onUse={() => connectWith(dev)}
        />
      )}
      {connect.isError && <ErrorNote error={connect.error} />}
    </div>
  );
}

/** The node's accounts, labelled from /api/info's role addresses (both usually prefetched on hover). */
function useDevAccounts(enabled: boolean) {
  const chain = usePlatformInfo().data?.for_agents.chain;
  const accounts = useQuery({ ...devAccountsQuery, enabled });
  const { fee_recipient, arbiter, operator } = chain ?? {};
  const labelled = useMemo(
    () => accounts.data && labelDevAccounts(accounts.data, { fee_recipient, arbiter, operator }),
    [accounts.data, fee_recipient, arbiter, operator],
  );
  return { data: labelled, isError: accounts.isError, error: accounts.error };
}

/**
 * Once `ready`, focus the first enabled control inside `root` if the focus is still where the
 * dialog put it while this loaded (its Close button) or nowhere; never take it from a control the
 * person moved to.
 */
function useFocusOnArrival(root: RefObject<HTMLElement | null>, ready: boolean) {
  const done = useRef(false);
  useEffect(() => {
    if (!ready || done.current || !root.current) return;
    done.current = true;
    const active = document.activeElement;
    const waiting = !active || active === document.body || active.getAttribute("rel") === "prev";
    if (!waiting) return;
    root.current.querySelector<HTMLElement>("button:not([disabled]), select:not([disabled])")?.focus();
  });
}

function DevWalletChoice({
  accounts,
  pending,
  preferred,
  verb,
  onUse,
}: {
  accounts: { data?: DevAccount[]; isError: boolean; error: unknown };
  pending: boolean;
  preferred?: string;
  verb: string;
  onUse: () => void;
}) {
  const [chosen, setChosen] = useState("");
  const list = accounts.data ?? [];
  const account = list.find((candidate) => candidate.address === chosen) ?? defaultDevAccount(list, preferred);
  return (
    <fieldset>
      <legend>Dev wallet (local chain only: the node's unlocked accounts sign)</legend>
      {accounts.isError ? (
        <ErrorNote error={accounts.error} />
      ) : (
        <>
          <label>
            Dev account
            <select
              value={account?.address ?? ""}
              onChange={(event) => setChosen(event.target.value)}
              disabled={!accounts.data}
              aria-busy={!accounts.data}
            >
              {list.map((candidate) => (
                <option key={candidate.address} value={candidate.address}>
                  {accountText(candidate)}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            disabled={!account || pending}
            onClick={() => {
              if (!account) return;
              devWallet.chooseAccount(account.address);
              onUse();
            }}
          >
            {account ? `${verb} ${account.label}` : verb}
          </button>
        </>
      )}
    </fieldset>
  );
}
