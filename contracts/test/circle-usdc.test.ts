/**
 * deployCircleUsdc and its helpers on an in-process Hardhat network: the token is Circle's
 * FiatToken v2.2 behind its proxy, initialized as Base's USDC (metadata, roles, EIP-712 domain), at
 * a fresh address or at the address asked for.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { network } from "hardhat";
import { type Address, domainSeparator, getAddress, getContract, pad, zeroAddress } from "viem";
import { BASE_CHAIN_ID, USDC_ADDRESSES } from "../src/chains.ts";
import {
  deployCircleUsdc,
  FIAT_TOKEN_PROXY_SLOTS,
  mintCircleUsdc,
  setCircleUsdcBlacklisted,
  setCircleUsdcPaused,
} from "../src/circle-usdc.ts";
import { fiatTokenAbi, fiatTokenProxyAbi } from "../src/generated/abis.ts";

const { viem } = await network.create();
const publicClient = await viem.getPublicClient();
const testClient = await viem.getTestClient();
const wallets = await viem.getWalletClients();
const wallet = (i: number) => {
  const found = wallets[i];
  if (!found) throw new Error(`need ${i + 1} accounts`);
  return found;
};
const deployer = wallet(0);
const admin = wallet(1);
const owner = wallet(2);
const minter = wallet(3);
const pauser = wallet(4);
const blacklister = wallet(5);
const alice = wallet(6);
const bob = wallet(7);
const chainId = await publicClient.getChainId();
const roles = {
  admin: admin.account.address,
  owner: owner.account.address,
  masterMinter: minter.account.address,
  pauser: pauser.account.address,
  blacklister: blacklister.account.address,
};

const tokenAs = (address: Address, wallet = alice) =>
  getContract({ address, abi: fiatTokenAbi, client: { public: publicClient, wallet } });

/** The checks every deployment must pass, wherever it lives. */
async function assertBaseUsdc(address: Address, implementation: Address) {
  const token = tokenAs(address);
  assert.equal(await token.read.name(), "USD Coin");
  assert.equal(await token.read.symbol(), "USDC");
  assert.equal(await token.read.currency(), "USD");
  assert.equal(await token.read.decimals(), 6);
  assert.equal(await token.read.version(), "2");
  assert.equal(await token.read.totalSupply(), 0n);
  assert.equal(
    await token.read.DOMAIN_SEPARATOR(),
    domainSeparator({ domain: { name: "USD Coin", version: "2", chainId, verifyingContract: address } }),
  );
  assert.equal(getAddress(await token.read.owner()), getAddress(roles.owner));
  assert.equal(getAddress(await token.read.masterMinter()), getAddress(roles.masterMinter));
  assert.equal(getAddress(await token.read.pauser()), getAddress(roles.pauser));
  assert.equal(getAddress(await token.read.blacklister()), getAddress(roles.blacklister));
  assert.equal(await token.read.paused(), false);
  // initializeV2_1/V2_2 blacklist the token itself, so tokens sent to it by mistake bounce.
  assert.equal(await token.read.isBlacklisted([address]), true);

  // The proxy's own slots, and the proxy answers its admin (and only it) about them.
  assert.equal(
    await publicClient.getStorageAt({ address, slot: FIAT_TOKEN_PROXY_SLOTS.implementation }),
    pad(implementation.toLowerCase() as Address, { size: 32 }),
  );
  assert.equal(
    await publicClient.getStorageAt({ address, slot: FIAT_TOKEN_PROXY_SLOTS.admin }),
    pad(roles.admin.toLowerCase() as Address, { size: 32 }),
  );
  const asAdmin = { address, abi: fiatTokenProxyAbi, account: roles.admin } as const;
  assert.equal(
    getAddress(await publicClient.readContract({ ...asAdmin, functionName: "implementation" })),
    getAddress(implementation),
  );
  assert.equal(
    getAddress(await publicClient.readContract({ ...asAdmin, functionName: "admin" })),
    getAddress(roles.admin),
  );
  await assert.rejects(
    publicClient.readContract({ address, abi: fiatTokenAbi, functionName: "name", account: roles.admin }),
    /Cannot call fallback function from the proxy admin/,
  );

  // Nobody can initialize the token, or its implementation, again.
  const args = [
    "X",
    "X",
    "X",
    18,
    alice.account.address,
    alice.account.address,
    alice.account.address,
    alice.account.address,
  ] as const;
  for (const target of [address, implementation]) {
    await assert.rejects(tokenAs(target).write.initialize(args), /already initialized/);
  }
}

describe("Circle USDC (FiatToken v2.2 behind FiatTokenProxy)", () => {
  it("deploys and initializes as Base's USDC", async () => {
    const { address, implementation, signatureChecker } = await deployCircleUsdc({
      wallet: deployer,
      publicClient,
      ...roles,
    });
    assert.notEqual(address, implementation);
    assert.ok(await publicClient.getCode({ address: signatureChecker }));
    await assertBaseUsdc(address, implementation);
  });

  it("`at` puts the token at the requested address (Base's USDC address)", async () => {
    const at = USDC_ADDRESSES[BASE_CHAIN_ID];
    assert.ok(at);
    assert.equal(await publicClient.getCode({ address: at }), undefined);
    const deployed = await deployCircleUsdc({ wallet: deployer, publicClient, testClient, ...roles, at });
    assert.equal(deployed.address, at);
    await assertBaseUsdc(at, deployed.implementation);
    // A second token cannot be put over the first.
    await assert.rejects(
      deployCircleUsdc({ wallet: deployer, publicClient, testClient, ...roles, at }),
      /already holds a token proxy/,
    );
  });

  it("refuses an admin that would also have to call the token", async () => {
    for (const clash of ["owner", "masterMinter", "pauser", "blacklister"] as const) {
      await assert.rejects(
        deployCircleUsdc({ wallet: deployer, publicClient, ...roles, admin: roles[clash] }),
        new RegExp(`also the ${clash}`),
      );
    }
    await assert.rejects(
      deployCircleUsdc({ wallet: deployer, publicClient, ...roles, admin: deployer.account.address }),
      /also the wallet/,
    );
    await assert.rejects(
      deployCircleUsdc({ wallet: deployer, publicClient, ...roles, at: USDC_ADDRESSES[BASE_CHAIN_ID] }),
      /needs a testClient/,
    );
  });

  it("mints through the master minter, blacklists and pauses through their roles", async () => {
    const { address: token } = await deployCircleUsdc({ wallet: deployer, publicClient, ...roles });
    const usdc = tokenAs(token);
    const [a, b] = [alice.account.address, bob.account.address];
    await mintCircleUsdc({ wallet: minter, publicClient, token, to: [a, b], amount: 5_000_000n });
    assert.equal(await usdc.read.balanceOf([a]), 5_000_000n);
    assert.equal(await usdc.read.balanceOf([b]), 5_000_000n);
    assert.equal(await usdc.read.totalSupply(), 10_000_000n);
    // The allowance was exactly what was minted.
    assert.equal(await usdc.read.minterAllowance([minter.account.address]), 0n);
    await mintCircleUsdc({ wallet: minter, publicClient, token, to: a, amount: 1n });
    assert.equal(await usdc.read.balanceOf([a]), 5_000_001n);
    // Only the master minter configures minters.
    await assert.rejects(
      mintCircleUsdc({ wallet: alice, publicClient, token, to: a, amount: 1n }),
      /caller is not the masterMinter/,
    );

    await setCircleUsdcBlacklisted({ wallet: blacklister, publicClient, token, account: b, blacklisted: true });
    assert.equal(await usdc.read.isBlacklisted([b]), true);
    await assert.rejects(usdc.write.transfer([b, 1n]), /Blacklistable: account is blacklisted/);
    await setCircleUsdcBlacklisted({ wallet: blacklister, publicClient, token, account: b, blacklisted: false });
    await usdc.write.transfer([b, 1n]);
    assert.equal(await usdc.read.balanceOf([b]), 5_000_001n);

    await setCircleUsdcPaused({ wallet: pauser, publicClient, token, paused: true });
    assert.equal(await usdc.read.paused(), true);
    await assert.rejects(usdc.write.transfer([b, 1n]), /Pausable: paused/);
    await assert.rejects(
      setCircleUsdcPaused({ wallet: alice, publicClient, token, paused: false }),
      /caller is not the pauser/,
    );
    await setCircleUsdcPaused({ wallet: pauser, publicClient, token, paused: false });
    await usdc.write.transfer([b, 1n]);
    assert.equal(await usdc.read.balanceOf([zeroAddress]), 0n);
  });
});
