import { LOCAL_CHAIN_ID } from "@agent-marketplace/contracts";
import type { Context } from "hono";

/*
 * The headers of the HTML pages this service answers (the web app, /docs): a Content-Security-Policy
 * that lets a page run only this origin's scripts (no inline script, no eval) and talk only to this
 * origin, so injected markup can neither run code nor send what it reads elsewhere.
 */

interface PolicyParts {
  /** Where scripts may come from besides this origin (a nonce for /docs' inline start-up script). */
  scriptSrc?: string[];
  /** Where the page may connect besides this origin (the chain's public RPC, off the local chain). */
  connectSrc?: string[];
  fontSrc?: string[];
}

/** A Content-Security-Policy header value. */
export function contentSecurityPolicy(parts: PolicyParts = {}): string {
  const sources = (extra: string[] = []) => ["'self'", ...extra].join(" ");
  return [
    "default-src 'self'",
    `script-src ${sources(parts.scriptSrc)}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src ${sources(parts.connectSrc)}`,
    `font-src ${sources(parts.fontSrc)}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * The public RPC endpoints of Base and Base Sepolia, by chain id, as viem's chains name them: the web
 * app's wallet transport uses those (web/src/wallet/config.ts). Written out rather than imported:
 * `viem/chains` loads every chain viem knows, 740 of the 2,176 modules the API loaded, for two URLs
 * (26 MiB in a process of its own; a few MiB on top of the rest of viem). security-headers.test.ts
 * holds them to viem's.
 */
export const PUBLIC_RPC: Readonly<Record<number, readonly string[]>> = {
  8453: ["https://mainnet.base.org"],
  84532: ["https://sepolia.base.org"],
};

/**
 * The https origins a page may reach the chain at: none on the local chain (the web app's dev wallet
 * posts to /api/dev/rpc, this origin), else the chain's public RPC and the configured RPC_URL's
 * origin (never its path, which may hold a provider's key).
 */
export function chainRpcOrigins(config: { chainId: number; rpcUrl: string }): string[] {
  if (config.chainId === LOCAL_CHAIN_ID) return [];
  const urls = [...(PUBLIC_RPC[config.chainId] ?? []), config.rpcUrl];
  const origins = urls.map((url) => new URL(url)).filter((url) => url.protocol === "https:");
  return [...new Set(origins.map((url) => url.origin))];
}

/** The web app's policy (its pages load only their own bundle, styled by their own CSS). */
export function webAppPolicy(config: { chainId: number; rpcUrl: string }): string {
  return contentSecurityPolicy({ connectSrc: chainRpcOrigins(config) });
}

/** Sets the policy and the headers every HTML page of this service carries. */
export function setPageSecurityHeaders(c: Context, policy: string): void {
  c.header("Content-Security-Policy", policy);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "same-origin");
}
