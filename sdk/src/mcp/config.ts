import { z } from "zod";

/* The MCP server's settings, from the environment. */

export const DEFAULT_API_URL = "http://127.0.0.1:3000";

const Environment = z
  .object({
    MARKETPLACE_API_URL: z.url().default(DEFAULT_API_URL),
    MARKETPLACE_API_KEY: z.string().min(1).optional(),
    MARKETPLACE_WALLET_PRIVATE_KEY: z.string().min(1).optional(),
    MARKETPLACE_RPC_URL: z.url().optional(),
  })
  .refine((env) => !env.MARKETPLACE_WALLET_PRIVATE_KEY || env.MARKETPLACE_RPC_URL, {
    message: "MARKETPLACE_WALLET_PRIVATE_KEY needs MARKETPLACE_RPC_URL (an RPC endpoint of the marketplace's chain)",
    path: ["MARKETPLACE_RPC_URL"],
  });

export interface McpConfig {
  apiUrl: string;
  apiKey: string | undefined;
  wallet: { privateKey: string; rpcUrl: string } | undefined;
}

/** Reads the settings; empty variables count as unset. Throws on a bad one, naming it. */
export function readMcpConfig(env: Record<string, string | undefined>): McpConfig {
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = Environment.safeParse(set);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
    throw new Error(`Invalid MCP server settings: ${problems}`);
  }
  const { MARKETPLACE_API_URL, MARKETPLACE_API_KEY, MARKETPLACE_WALLET_PRIVATE_KEY, MARKETPLACE_RPC_URL } = parsed.data;
  return {
    apiUrl: MARKETPLACE_API_URL,
    apiKey: MARKETPLACE_API_KEY,
    wallet:
      MARKETPLACE_WALLET_PRIVATE_KEY && MARKETPLACE_RPC_URL
        ? { privateKey: MARKETPLACE_WALLET_PRIVATE_KEY, rpcUrl: MARKETPLACE_RPC_URL }
        : undefined,
  };
}
