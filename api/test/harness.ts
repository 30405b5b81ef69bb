import { randomBytes, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import pino, { type Logger } from "pino";
import { type Address, createPublicClient, erc20Abi, http } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { inject } from "vitest";
import { createApp } from "../src/app.ts";
import { createChainServices } from "../src/chain/services.ts";
import { type Config, loadConfig } from "../src/config.ts";
import { createDatabase, type Database } from "../src/db/client.ts";
import { listings } from "../src/db/schema.ts";
import { migrateDatabase } from "../src/migrate.ts";
import {
  MemoryRateLimitStore,
  PostgresRateLimitStore,
  type RateLimitStore,
  SharedRateLimitStore,
} from "../src/rate-limit/store.ts";

/** The arbiter's desk key in tests (the arbiter is the local deployment's, account #1). */
export const ARBITER_API_KEY = "a".repeat(64);

/**
 * The app on the suite's real stack (test/global-setup.ts), with its own in-memory rate limits
 * (or, with `rateLimits: "shared"`, the Postgres-shared ones an API process has). A
 * test file registers many agents from one address, so the registration limit is raised unless
 * the test sets it; the rate-limit tests set their own. Its logger is silent unless given.
 */
export async function testApp(
  overrides: Partial<Config> = {},
  {
    logger = pino({ level: "silent" }),
    rateLimits = "memory",
    ...pool
  }: { max?: number; connectionTimeoutMs?: number; logger?: Logger; rateLimits?: "memory" | "shared" } = {},
) {
  const stack = inject("stack");
  const config = {
    ...loadConfig({
      DATABASE_URL: stack.databaseUrl,
      RPC_URL: stack.rpcUrl,
      CHAIN_ID: String(stack.deployment.chainId),
      MASTER_KEY: randomBytes(32).toString("hex"),
      LOG_LEVEL: "silent",
      REGISTRATIONS_PER_HOUR: "100000",
      RATE_LIMIT_PER_IP_PER_MINUTE: "100000",
      // Tests change rows directly too; the browse cache has tests of its own.
      BROWSE_CACHE_MS: "0",
      ARBITER_API_KEY,
    }),
    ...overrides,
  };
  const db = createDatabase(config.databaseUrl, { max: 5, ...pool });
  await migrateDatabase(db);
  const genericPlansDb = createDatabase(config.databaseUrl, { max: 2, genericPlans: true });
  const sharedLimits = rateLimits === "shared" ? new SharedRateLimitStore(new PostgresRateLimitStore(db)) : undefined;
  await sharedLimits?.start();
  const rateLimitStore: RateLimitStore = sharedLimits ?? new MemoryRateLimitStore();
  const services = await createChainServices(config, db, stack.deployment);
  const app = createApp({
    config,
    db,
    genericPlansDb,
    ...services,
    logger,
    rateLimitStore,
  });
  // Tests are clients on this machine, as the web app's page is on a laptop: a request without
  // bindings comes from 127.0.0.1. A test of another client passes its own (connectionFrom).
  const request = app.request;
  app.request = (input, init, env, executionCtx) =>
    request(input, init, env ?? connectionFrom("127.0.0.1"), executionCtx);
  return {
    app,
    db,
    config,
    services,
    close: async () => {
      await sharedLimits?.close();
      await Promise.all([db.$client.end(), genericPlansDb.$client.end()]);
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof testApp>>;

/**
 * The Node server's bindings (@hono/node-server) of a connection from `remoteAddress`: the third
 * argument of `app.request`, for a request from that client.
 */
export function connectionFrom(remoteAddress: string) {
  return { incoming: { socket: { remoteAddress } } };
}

/** A fresh wallet, so tests never collide on the unique wallet index. */
export function newWallet() {
  return privateKeyToAccount(generatePrivateKey());
}

/** A response's JSON body, loosely typed for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON.
export async function json(response: Response): Promise<any> {
  return response.json();
}

/** JSON request helpers. */
export function post(app: TestApp["app"], path: string, body: unknown, key?: string) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key && { authorization: `Bearer ${key}` }) },
    body: JSON.stringify(body),
  });
}

export function patch(app: TestApp["app"], path: string, body: unknown, key?: string) {
  return app.request(path, {
    method: "PATCH",
    headers: { "content-type": "application/json", ...(key && { authorization: `Bearer ${key}` }) },
    body: JSON.stringify(body),
  });
}

export function get(app: TestApp["app"], path: string, key?: string) {
  return app.request(path, { headers: key ? { authorization: `Bearer ${key}` } : {} });
}

export function del(app: TestApp["app"], path: string, key?: string) {
  return app.request(path, { method: "DELETE", headers: key ? { authorization: `Bearer ${key}` } : {} });
}

/**
 * A Sign-In with Ethereum message for the test app (which answers on http://localhost), with a
 * fresh nonce from the app, signed by `account`: the body of POST /api/auth/login. `fields`
 * overrides any part of the message (a forged domain, an expired time, ...).
 */
export async function signIn(
  app: TestApp["app"],
  account: PrivateKeyAccount,
  chainId: number,
  fields: Partial<Parameters<typeof createSiweMessage>[0]> = {},
) {
  const { nonce } = await json(await get(app, "/api/auth/nonce"));
  const message = createSiweMessage({
    address: account.address,
    chainId,
    domain: "localhost",
    nonce,
    uri: "http://localhost/",
    version: "1",
    ...fields,
  });
  return { message, signature: await account.signMessage({ message }) };
}

/** Signs `account` in (Sign-In with Ethereum) and answers its session token. */
export async function sessionOf(app: TestApp["app"], account: PrivateKeyAccount, chainId: number): Promise<string> {
  const response = await post(app, "/api/auth/login", await signIn(app, account, chainId));
  if (response.status !== 200) throw new Error(`login answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { session_token: string }).session_token;
}

/** Registers an external agent with a fresh wallet; returns its id, key and wallet. */
export async function registerAgent(app: TestApp["app"], name = "agent") {
  const wallet = newWallet();
  const response = await post(app, "/api/agents/register", { agent_name: name, wallet_address: wallet.address });
  if (response.status !== 201) throw new Error(`register answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { agent: { id: string }; api_key: string };
  return { id: body.agent.id, key: body.api_key, wallet };
}

/** Registers an external agent with a given wallet (e.g. a dev account that trades on chain). */
export async function registerWithWallet(app: TestApp["app"], name: string, walletAddress: string) {
  const response = await post(app, "/api/agents/register", { agent_name: name, wallet_address: walletAddress });
  if (response.status !== 201) throw new Error(`register answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { agent: { id: string }; api_key: string };
  return { id: body.agent.id, key: body.api_key };
}

export type { Database };

/**
 * An empty database of its own on the suite's Postgres, for a test that other files' rows (or
 * other files' API processes) must not reach. `drop` removes it, cutting off whoever is still
 * connected: close the test's own pools first.
 */
export async function databaseOfItsOwn(
  t: TestApp,
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomUUID().replaceAll("-", "")}`;
  await t.db.$client.query(`CREATE DATABASE ${name}`);
  const url = new URL(inject("stack").databaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await t.db.$client.query(`DROP DATABASE ${name} WITH (FORCE)`);
    },
  };
}

/** A word no other test uses, for keyword searches that only find this test's listings. */
export function uniqueWord(prefix = "kw") {
  return `${prefix}${randomBytes(6).toString("hex")}`;
}

/** Creates a FIXED listing for `agent` (201 or throws); returns the listing details. */
export async function createListing(
  app: TestApp["app"],
  agent: { id: string; key: string },
  fields: Record<string, unknown> = {},
  // biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON.
): Promise<any> {
  const response = await post(
    app,
    "/api/listings",
    { agent_id: agent.id, title: "A listing", description: "Some work", price_wei: "1500000", ...fields },
    agent.key,
  );
  if (response.status !== 201) throw new Error(`create listing answered ${response.status}: ${await response.text()}`);
  return response.json();
}

/** The listings rows of an agent, oldest first: to check that a refused request changed nothing. */
export async function listingRowsOf(db: Database, agentId: string) {
  const rows = await db.select().from(listings).where(eq(listings.agentId, agentId));
  return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
}

/**
 * A hosted agent (the service holds its wallet's key), registered as the spec's quick start does
 * (no wallet_address), given `usdcWei` by the local faucet.
 */
export async function registerHosted(app: TestApp["app"], name = "hosted", usdcWei = 0n) {
  const response = await post(app, "/api/agents/register", { name, bio: `${name}, hosted` });
  if (response.status !== 201) throw new Error(`register answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { agent: { id: string; wallet_address: Address }; api_key: string };
  if (usdcWei > 0n) {
    const grant = await post(app, "/api/dev/faucet", {
      address: body.agent.wallet_address,
      usdc_wei: usdcWei.toString(),
    });
    if (grant.status !== 200) throw new Error(`faucet answered ${grant.status}: ${await grant.text()}`);
  }
  return { id: body.agent.id, key: body.api_key, wallet: body.agent.wallet_address };
}

let chainClient: ReturnType<typeof createPublicClient> | undefined;

/** The USDC balance of `address` on the suite's chain. */
export function usdcBalance(address: Address): Promise<bigint> {
  const stack = inject("stack");
  chainClient ??= createPublicClient({ transport: http(stack.rpcUrl) });
  return chainClient.readContract({
    address: stack.deployment.contracts.USDC.address,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [address],
  });
}
