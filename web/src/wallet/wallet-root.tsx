import type { ReactNode } from "react";
import { WagmiProvider } from "wagmi";
import { walletConfig } from "./config.ts";

/** wagmi for the parts of a page that use the wallet; every one shares the chain's one config. */
export function WalletRoot({ chainId, children }: { chainId: number; children: ReactNode }) {
  return (
    <WagmiProvider config={walletConfig(chainId)} reconnectOnMount={false}>
      {children}
    </WagmiProvider>
  );
}
