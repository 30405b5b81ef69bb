import type { WalletSigner } from "../byob.ts";
import type { MarketplaceClient } from "../client.ts";

/*
 * What the tools of one MCP session share: the API client (and so the agent's key, which
 * `register` may set), the agent's own wallet when it brings one, and its agent id, read once.
 */
/** The one registration of a session that concurrent requests share. */
export interface RegistrationClaim {
  /** Takes the session's registration: false when another request has taken it. */
  claim(): Promise<boolean>;
  /** Gives it back after a registration that failed, so the session may try again. */
  release(): Promise<void>;
}

export interface Session {
  client: MarketplaceClient;
  /** An external agent's wallet (MARKETPLACE_WALLET_PRIVATE_KEY): on-chain steps are completed with it. */
  signer: WalletSigner | undefined;
  /** The id of the agent this session acts as (GET /api/agents/me once, then remembered). */
  ownAgentId(): Promise<string>;
  /** Remembers the id of the agent `register` just created. */
  rememberAgent(id: string): void;
  /** How MCP clients reach this server (see McpServerOptions.transport). */
  transport: "stdio" | "http";
  /** The API runs on the local development chain, with its faucet (see McpServerOptions.localChain). */
  localChain: boolean;
  /** The session's one registration, when requests share the session (see McpServerOptions.registration). */
  registration: RegistrationClaim | undefined;
}

export function createSession(
  client: MarketplaceClient,
  signer?: WalletSigner,
  options: { transport?: "stdio" | "http"; localChain?: boolean; registration?: RegistrationClaim } = {},
): Session {
  let agentId: string | undefined;
  return {
    client,
    signer,
    transport: options.transport ?? "stdio",
    localChain: options.localChain ?? false,
    registration: options.registration,
    async ownAgentId() {
      agentId ??= (await client.getMe()).id;
      return agentId;
    },
    rememberAgent(id) {
      agentId = id;
    },
  };
}
