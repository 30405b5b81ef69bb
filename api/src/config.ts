import { createHash } from "node:crypto";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LOCAL_CHAIN_ID } from "@agent-marketplace/contracts";
import { z } from "zod";
import { hardhatDevAccountOf } from "./chain/dev-accounts.ts";

/**
 * Everything the API reads from the environment, checked once at start. Secrets (the master key)
 * never leave this object except into the module that needs them.
 */
const EnvSchema = z.object({
  DATABASE_URL: z.string().min(1, "DATABASE_URL is required"),
  CHAIN_ID: z.coerce.number().int().default(LOCAL_CHAIN_ID),
  RPC_URL: z.string().url().default("http://127.0.0.1:8545"),
  /** 32 bytes as 64 hex: encrypts the custodial keys of hosted agents (AES-256-GCM). */
  MASTER_KEY: z.string().regex(/^(0x)?[0-9a-fA-F]{64}$/, "MASTER_KEY must be 32 bytes of hex"),
  HOST: z.string().default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(100),
  /** Requests without an API key, per client IP. */
  RATE_LIMIT_PER_IP_PER_MINUTE: z.coerce.number().int().positive().default(600),
  REGISTRATIONS_PER_HOUR: z.coerce.number().int().positive().default(10),
  /** Direct messages and feed posts an agent may write per minute. */
  MESSAGES_PER_MINUTE: z.coerce.number().int().positive().default(20),
  /** `bounty.matching` notifications an agent gets at most per hour (0: none are sent). */
  MATCHING_BOUNTIES_PER_HOUR: z.coerce.number().int().min(0).max(1_000).default(10),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024),
  /** How long a listing browse answer may be served from memory (0: never). */
  BROWSE_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  /**
   * Where browse pages are read: `memory`, this process's listing index, current with Postgres at
   * every page (domain/reads/listing-index-sync.ts); `sql`, a statement per page.
   */
  BROWSE_INDEX: z.enum(["memory", "sql"]).default("memory"),
  /**
   * The relayer's key (32 bytes of hex): it pays the gas of hosted agents' actions and is the
   * escrow's operator. On the local chain it defaults to the Hardhat node's account #2.
   */
  RELAYER_PRIVATE_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, "RELAYER_PRIVATE_KEY must be 0x and 64 hex characters")
    .optional(),
  /**
   * The arbiter's key: it sends `resolve` (and pays its gas). On the local chain it defaults to the
   * Hardhat node's account #1, the local deployment's arbiter.
   */
  ARBITER_PRIVATE_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, "ARBITER_PRIVATE_KEY must be 0x and 64 hex characters")
    .optional(),
  /** The Bearer key of the arbiter's desk (64 hex): the only credential POST /resolve accepts. */
  ARBITER_API_KEY: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "ARBITER_API_KEY must be 64 lowercase hex characters")
    .optional(),
  /** Dispute window of new escrows, in hours (after delivery; then anyone may release). */
  DISPUTE_WINDOW_HOURS: z.coerce.number().int().min(0).max(720).default(24),
  /** How long a write waits for the indexer to reach its block before answering (read-your-writes). */
  INDEXER_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  /**
   * The indexer's own HTTP server (Ponder's /health). When set, health answers 503 as soon as the
   * indexer process stops answering, not only once its lag grows.
   */
  INDEXER_URL: z.string().url().optional(),
  /** How often the keeper runs (auto-release, expiry refunds, reconciliation); 0 turns it off. */
  KEEPER_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  /**
   * How often indexed escrow events become notifications and due webhooks are sent; 0 turns both
   * off (tests drive them by hand).
   */
  NOTIFY_INTERVAL_MS: z.coerce.number().int().min(0).max(60_000).default(500),
  /**
   * Wait before a failed webhook's second attempt; each further wait is 4 times longer (≤ 1 h). The
   * endpoint waits as long after each failure in a row, whichever delivery failed.
   */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(10_000),
  /** Attempts before a webhook delivery is marked failed. */
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(8),
  /** How long a webhook receiver has to answer (the name's resolution and the connection included). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(5_000),
  /** Failed attempts in a row after which an endpoint is paused (its owner is told). */
  WEBHOOK_PAUSE_AFTER_FAILURES: z.coerce.number().int().min(1).max(100).default(10),
  /** Deliveries one API process has in flight at most, each to another endpoint. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(64),
  /**
   * Whether webhook URLs may point at loopback or private addresses. Only for local development:
   * the default is true on the local chain and false elsewhere.
   */
  WEBHOOK_ALLOW_PRIVATE: z.enum(["true", "false"]).optional(),
  /**
   * Where clients reach this API (scheme, host, optional path prefix), e.g. https://market.example.
   * URLs that leave the service and stay (ERC-8004 registration and feedback files named on chain)
   * are built on it; without it, on the request's own origin.
   */
  PUBLIC_BASE_URL: z
    .string()
    .url()
    .refine((url) => /^https?:\/\//.test(url), { message: "must be an http(s) URL" })
    .optional(),
  /** How long a database query may wait for Postgres before the request answers 503. */
  DATABASE_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  /**
   * Connections of this process's pool to Postgres. Default: a few per CPU (see
   * defaultPoolSize): more would only queue inside Postgres and switch between backends.
   */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).optional(),
  /**
   * The web app's build (index.html and assets/), served at /. Default: the repository's web/dist,
   * found from this package's own location.
   */
  WEB_DIST_DIR: z.string().min(1).optional(),
  /**
   * Names this process in an `X-Api-Instance` header on every answer. The cluster (API_PROCESSES,
   * src/cluster.ts) numbers its processes 1..N this way, so a client can tell which one answered.
   */
  API_INSTANCE: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, "API_INSTANCE must be 1 to 64 letters, digits, dots, dashes or underscores")
    .optional(),
  /**
   * Who reaches /api/dev (the faucet and the dev wallet, whose dev accounts sign: the arbiter's
   * too), which exists on the local chain only: unset, clients on this machine (loopback); `on`,
   * any client that reaches the port; `off`, nobody (the routes are absent).
   */
  DEV_ROUTES: z
    .enum(["on", "off"], { message: 'must be "on" or "off" (unset: clients on this machine only)' })
    .optional(),
  /**
   * The Bearer token a scraper presents for GET /metrics from another machine (clients on this
   * machine need none); unset, only clients on this machine are answered.
   */
  METRICS_TOKEN: z
    .string()
    .regex(/^[A-Za-z0-9._~+/=-]{16,256}$/, "METRICS_TOKEN must be 16 to 256 letters, digits or ._~+/=-")
    .optional(),
  /** How many blocks the indexer may be behind the chain head for GET /api/ready to answer 200. */
  READY_MAX_LAG_BLOCKS: z.coerce.number().int().min(0).max(100_000).default(5),
  /** Behind a proxy, trust its X-Forwarded-For for the client's address (rate limits by IP). */
  TRUST_PROXY: z
    .enum(["true", "false"])
    .default("false")
    .transform((value) => value === "true"),
});

export interface Config {
  databaseUrl: string;
  databaseQueryTimeoutMs: number;
  databasePoolSize: number;
  chainId: number;
  rpcUrl: string;
  masterKey: Buffer;
  host: string;
  port: number;
  logLevel: z.infer<typeof EnvSchema>["LOG_LEVEL"];
  rateLimitPerMinute: number;
  rateLimitPerIpPerMinute: number;
  registrationsPerHour: number;
  messagesPerMinute: number;
  /** `bounty.matching` notifications an agent gets at most per hour (domain/listings/bounty-matching.ts). */
  matchingBountiesPerHour: number;
  bodyLimitBytes: number;
  browseCacheMs: number;
  browseIndex: "memory" | "sql";
  trustProxy: boolean;
  /**
   * DEV_ROUTES: who reaches /api/dev on the local chain: `loopback` (unset), clients on this
   * machine; `on`, every client; `off`, nobody (absent). Off the local chain it is always absent.
   */
  devRoutes: "on" | "off" | "loopback";
  relayerPrivateKey: `0x${string}`;
  disputeWindowSeconds: number;
  indexerWaitMs: number;
  keeperIntervalMs: number;
  indexerUrl?: string;
  notifyIntervalMs: number;
  webhooks: {
    retryBaseMs: number;
    maxAttempts: number;
    timeoutMs: number;
    allowPrivateAddresses: boolean;
    pauseAfterFailures: number;
    concurrency: number;
  };
  /** Without a trailing slash; absent: each request's origin. */
  publicBaseUrl?: string;
  /** The web app's build folder (absolute). */
  webDistDir: string;
  /** Absent: disputes cannot be resolved through the API. */
  arbiter?: { privateKey: `0x${string}`; apiKeyHash: string };
  /** API_INSTANCE: this process's name in the `X-Api-Instance` header; absent: no header. */
  instance?: string;
  /** METRICS_TOKEN: admits a scraper of GET /metrics from another machine; absent: this machine's only. */
  metricsToken?: string;
  /** READY_MAX_LAG_BLOCKS: the indexer's lag (blocks) up to which GET /api/ready answers 200. */
  readyMaxLagBlocks: number;
}

/** The most processes API_PROCESSES may ask for. */
export const MAX_API_PROCESSES = 64;

/**
 * API_PROCESSES: how many processes serve the API's port (src/cluster.ts). 1, the default, is
 * the one process that reads it.
 */
export function apiProcessesOf(env: Record<string, string | undefined> = process.env): number {
  const raw = env.API_PROCESSES?.trim();
  if (!raw) return 1;
  const processes = Number(raw);
  if (!/^\d+$/.test(raw) || processes < 1 || processes > MAX_API_PROCESSES) {
    throw new Error(
      `Invalid configuration:\n  API_PROCESSES: must be a whole number from 1 to ${MAX_API_PROCESSES}, not "${env.API_PROCESSES}"`,
    );
  }
  return processes;
}

/** The repository's web/dist, from this file (api/src/config.ts). */
const DEFAULT_WEB_DIST_DIR = fileURLToPath(new URL("../../web/dist", import.meta.url));

/** The Hardhat node's account #1: the local deployment's arbiter. */
export const LOCAL_ARBITER_PRIVATE_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

/** The Hardhat node's account #2 (mnemonic "test test … junk"): the local deployment's operator. */
export const LOCAL_RELAYER_PRIVATE_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";

/**
 * The pool size when DATABASE_POOL_SIZE is not set: four connections per CPU of this machine, at
 * least 8 (a send that waits for the chain holds one; reads must still find others).
 */
export function defaultPoolSize(): number {
  return Math.max(8, 4 * availableParallelism());
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n  ${problems.join("\n  ")}`);
  }
  const e = parsed.data;
  refuseDevKeysOffLocalChain(e);
  const relayerPrivateKey =
    (e.RELAYER_PRIVATE_KEY as `0x${string}` | undefined) ??
    (e.CHAIN_ID === LOCAL_CHAIN_ID ? LOCAL_RELAYER_PRIVATE_KEY : undefined);
  if (!relayerPrivateKey)
    throw new Error(`Invalid configuration:\n  RELAYER_PRIVATE_KEY is required on chain ${e.CHAIN_ID}`);
  return {
    databaseUrl: e.DATABASE_URL,
    databaseQueryTimeoutMs: e.DATABASE_QUERY_TIMEOUT_MS,
    databasePoolSize: e.DATABASE_POOL_SIZE ?? defaultPoolSize(),
    chainId: e.CHAIN_ID,
    rpcUrl: e.RPC_URL,
    masterKey: Buffer.from(e.MASTER_KEY.replace(/^0x/, ""), "hex"),
    host: e.HOST,
    port: e.PORT,
    logLevel: e.LOG_LEVEL,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    rateLimitPerIpPerMinute: e.RATE_LIMIT_PER_IP_PER_MINUTE,
    registrationsPerHour: e.REGISTRATIONS_PER_HOUR,
    messagesPerMinute: e.MESSAGES_PER_MINUTE,
    matchingBountiesPerHour: e.MATCHING_BOUNTIES_PER_HOUR,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    browseCacheMs: e.BROWSE_CACHE_MS,
    browseIndex: e.BROWSE_INDEX,
    trustProxy: e.TRUST_PROXY,
    devRoutes: e.DEV_ROUTES ?? "loopback",
    relayerPrivateKey,
    disputeWindowSeconds: e.DISPUTE_WINDOW_HOURS * 3600,
    indexerWaitMs: e.INDEXER_WAIT_MS,
    keeperIntervalMs: e.KEEPER_INTERVAL_MS,
    indexerUrl: e.INDEXER_URL,
    notifyIntervalMs: e.NOTIFY_INTERVAL_MS,
    webhooks: {
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      allowPrivateAddresses: (e.WEBHOOK_ALLOW_PRIVATE ?? String(e.CHAIN_ID === LOCAL_CHAIN_ID)) === "true",
      pauseAfterFailures: e.WEBHOOK_PAUSE_AFTER_FAILURES,
      concurrency: e.WEBHOOK_CONCURRENCY,
    },
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ""),
    webDistDir: e.WEB_DIST_DIR ? path.resolve(e.WEB_DIST_DIR) : DEFAULT_WEB_DIST_DIR,
    arbiter: arbiterOf(e),
    instance: e.API_INSTANCE,
    metricsToken: e.METRICS_TOKEN,
    readyMaxLagBlocks: e.READY_MAX_LAG_BLOCKS,
  };
}

/** The service's own keys: each signs and pays for the service. */
const SERVICE_KEY_VARIABLES = ["RELAYER_PRIVATE_KEY", "ARBITER_PRIVATE_KEY"] as const;

/**
 * Off the local chain, a service key that is one of the Hardhat node's dev accounts' is refused:
 * those keys are public, so on a real chain anyone could send as the relayer (the escrow's
 * operator) or rule as the arbiter, and take what the account holds.
 */
function refuseDevKeysOffLocalChain(e: z.infer<typeof EnvSchema>): void {
  if (e.CHAIN_ID === LOCAL_CHAIN_ID) return;
  const problems: string[] = [];
  for (const variable of SERVICE_KEY_VARIABLES) {
    const key = e[variable] as `0x${string}` | undefined;
    const account = key === undefined ? undefined : hardhatDevAccountOf(key);
    if (account === undefined) continue;
    problems.push(
      `${variable} is the key of the Hardhat node's dev account #${account} (mnemonic "test test … junk"), which anyone can look up: on chain ${e.CHAIN_ID} anyone could sign with it. Use a key of your own (those keys are for the local chain, ${LOCAL_CHAIN_ID}, only)`,
    );
  }
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  ${problems.join("\n  ")}`);
}

function arbiterOf(e: z.infer<typeof EnvSchema>): Config["arbiter"] {
  if (!e.ARBITER_API_KEY) return undefined;
  const privateKey =
    (e.ARBITER_PRIVATE_KEY as `0x${string}` | undefined) ??
    (e.CHAIN_ID === LOCAL_CHAIN_ID ? LOCAL_ARBITER_PRIVATE_KEY : undefined);
  if (!privateKey)
    throw new Error(
      `Invalid configuration:\n  ARBITER_PRIVATE_KEY is required with ARBITER_API_KEY on chain ${e.CHAIN_ID}`,
    );
  return { privateKey, apiKeyHash: createHash("sha256").update(e.ARBITER_API_KEY).digest("hex") };
}
