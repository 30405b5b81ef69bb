import type { QueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useConnection, useDisconnect, useSignMessage } from "wagmi";
import { Hex } from "../components/address.tsx";
import { ErrorNote, Loaded } from "../components/states.tsx";
import { client } from "../lib/client.ts";
import { LOCAL_CHAIN_ID, platformInfoQuery, usePlatformInfo } from "../lib/platform-info.ts";
import { signedIn } from "../lib/session.ts";
import { buildSiweMessage } from "../lib/siwe.ts";
import { DEV_WALLET_ID } from "./config.ts";
import { ConnectWallet } from "./connect-wallet.tsx";
import { devAccountsQuery } from "./dev-wallet.ts";
import { WrongNetwork } from "./network-check.tsx";
import { WalletRoot } from "./wallet-root.tsx";

/**
 * Sign-In with Ethereum, the inside of the sign-in dialog (the dialog itself, a Modal, is drawn by
 * the Sign in button at once, while this loads): connect a wallet, check it is on the marketplace's
 * chain, sign the API's message; the session then lives in an HttpOnly cookie the page never reads.
 */
export default function SignInBody({ onDone }: { onDone: () => void }) {
  const info = usePlatformInfo();
  return (
    <Loaded query={info} label="Reading the marketplace's chain…">
      {(platform) => (
        <WalletRoot chainId={platform.for_agents.chain.chain_id}>
          <SignInFlow chainId={platform.for_agents.chain.chain_id} onDone={onDone} />
        </WalletRoot>
      )}
    </Loaded>
  );
}

/**
 * What the dialog will read, fetched ahead (the button calls this on hover, focus or press): the
 * marketplace's chain, and on the local chain the node's accounts, so that the dialog opens usable.
 */
export async function prefetchSignIn(queryClient: QueryClient): Promise<void> {
  const info = await queryClient.fetchQuery(platformInfoQuery);
  if (info.for_agents.chain.chain_id === LOCAL_CHAIN_ID) await queryClient.prefetchQuery(devAccountsQuery);
}

function SignInFlow({ chainId, onDone }: { chainId: number; onDone: () => void }) {
  const connection = useConnection();
  const disconnect = useDisconnect();
  const signMessage = useSignMessage();
  const [signing, setSigning] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  // The wallet the dialog asked to sign for already: it asks once by itself, then only on a click.
  const askedFor = useRef<string>(undefined);

  async function signIn(address: string) {
    setSigning(true);
    setFailure(undefined);
    try {
      const { nonce } = await client.getSiweNonce();
      const message = buildSiweMessage({
        address: address as `0x${string}`,
        chainId,
        nonce,
        host: location.host,
        origin: location.origin,
      });
      const signature = await signMessage.mutateAsync({ message, account: address as `0x${string}` });
      signedIn(await client.login({ message, signature, cookie: true }));
      onDone();
    } catch (error) {
      setFailure(error);
    } finally {
      setSigning(false);
    }
  }

  // As soon as a wallet is connected on the marketplace's chain (at once, or after switching
  // networks), ask it to sign: connecting was the person's request to sign in. Once per address.
  const readyAddress =
    connection.status === "connected" && connection.chainId === chainId ? connection.address : undefined;
  useEffect(() => {
    if (!readyAddress || askedFor.current === readyAddress) return;
    askedFor.current = readyAddress;
    void signIn(readyAddress);
  });

  if (connection.status !== "connected") return <ConnectWallet verb="Sign in as" takeFocus />;
  const address = connection.address;
  return (
    <div>
      <p>
        Wallet: <Hex value={address} /> ({connection.connector.id === DEV_WALLET_ID ? "dev wallet" : "browser wallet"}){" "}
        <button type="button" className="secondary outline" onClick={() => disconnect.mutate()}>
          Use another wallet
        </button>
      </p>
      {connection.chainId !== chainId ? (
        <WrongNetwork walletChainId={connection.chainId} expectedChainId={chainId} />
      ) : (
        <button type="button" aria-busy={signing} disabled={signing} onClick={() => void signIn(address)}>
          Sign in with Ethereum
        </button>
      )}
      {signing && <p role="status">Sign the message in your wallet…</p>}
      {failure !== undefined && <ErrorNote error={failure} />}
    </div>
  );
}
