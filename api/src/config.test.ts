import { toHex } from "viem";
import { generatePrivateKey, mnemonicToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { HARDHAT_MNEMONIC, hardhatDevAddresses } from "./chain/dev-accounts.ts";
import {
  apiProcessesOf,
  defaultPoolSize,
  LOCAL_ARBITER_PRIVATE_KEY,
  LOCAL_RELAYER_PRIVATE_KEY,
  loadConfig,
} from "./config.ts";

const MASTER_KEY = "ab".repeat(32);

describe("loadConfig", () => {
  it("fills the defaults of a local stack", () => {
    const config = loadConfig({ DATABASE_URL: "postgresql://localhost/x", MASTER_KEY });
    expect(config).toMatchObject({
      chainId: 31337,
      rpcUrl: "http://127.0.0.1:8545",
      port: 3000,
      rateLimitPerMinute: 100,
      registrationsPerHour: 10,
      trustProxy: false,
    });
    expect(config.masterKey).toEqual(Buffer.from(MASTER_KEY, "hex"));
  });

  it("sizes the database pool by the CPUs unless DATABASE_POOL_SIZE says, and refuses a size of 0", () => {
    const base = { DATABASE_URL: "postgresql://localhost/x", MASTER_KEY };
    expect(loadConfig(base).databasePoolSize).toBe(defaultPoolSize());
    expect(defaultPoolSize()).toBeGreaterThanOrEqual(8);
    expect(loadConfig({ ...base, DATABASE_POOL_SIZE: "5" }).databasePoolSize).toBe(5);
    expect(() => loadConfig({ ...base, DATABASE_POOL_SIZE: "0" })).toThrow(/DATABASE_POOL_SIZE/);
  });

  it("keeps PUBLIC_BASE_URL without its trailing slash, and refuses one that is not http(s)", () => {
    const base = { DATABASE_URL: "postgresql://localhost/x", MASTER_KEY };
    expect(loadConfig(base).publicBaseUrl).toBeUndefined();
    expect(loadConfig({ ...base, PUBLIC_BASE_URL: "https://market.example/v1/" }).publicBaseUrl).toBe(
      "https://market.example/v1",
    );
    expect(() => loadConfig({ ...base, PUBLIC_BASE_URL: "ftp://market.example" })).toThrow(/PUBLIC_BASE_URL/);
  });

  it("refuses a missing database or a master key that is not 32 bytes, naming each problem", () => {
    expect(() => loadConfig({ MASTER_KEY })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: "postgresql://localhost/x", MASTER_KEY: "abcd" })).toThrow(/MASTER_KEY/);
    expect(() => loadConfig({ DATABASE_URL: "postgresql://localhost/x", MASTER_KEY, PORT: "http" })).toThrow(/PORT/);
  });

  it("names the process in API_INSTANCE only when given, and refuses a name a header cannot carry", () => {
    const base = { DATABASE_URL: "postgresql://localhost/x", MASTER_KEY };
    expect(loadConfig(base).instance).toBeUndefined();
    expect(loadConfig({ ...base, API_INSTANCE: "2" }).instance).toBe("2");
    expect(() => loadConfig({ ...base, API_INSTANCE: "a b" })).toThrow(/API_INSTANCE/);
  });
});

describe("DEV_ROUTES", () => {
  const base = { DATABASE_URL: "postgresql://localhost/x", MASTER_KEY };

  it("is loopback only unless set to on or off", () => {
    expect(loadConfig(base).devRoutes).toBe("loopback");
    expect(loadConfig({ ...base, DEV_ROUTES: "on" }).devRoutes).toBe("on");
    expect(loadConfig({ ...base, DEV_ROUTES: "off" }).devRoutes).toBe("off");
  });

  it("refuses any other value, naming the variable", () => {
    for (const value of ["", "ON", "true", "1", "loopback", "yes"]) {
      expect(() => loadConfig({ ...base, DEV_ROUTES: value }), value).toThrow(/DEV_ROUTES: must be "on" or "off"/);
    }
  });
});

describe("the service's keys off the local chain", () => {
  const base = { DATABASE_URL: "postgresql://localhost/x", MASTER_KEY };
  const devKey = (addressIndex: number) =>
    toHex(mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex }).getHdKey().privateKey as Uint8Array);

  it("knows dev accounts #0..#19 as viem derives them from the mnemonic", () => {
    const addresses = hardhatDevAddresses();
    expect(addresses).toHaveLength(20);
    for (const index of [0, 1, 2, 19]) {
      expect(addresses[index], `#${index}`).toBe(mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex: index }).address);
    }
    expect(addresses[0]).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
  });

  it("refuses a dev account's key as the relayer's or the arbiter's, naming the variable and the account", () => {
    expect(() => loadConfig({ ...base, CHAIN_ID: "8453", RELAYER_PRIVATE_KEY: LOCAL_RELAYER_PRIVATE_KEY })).toThrow(
      /RELAYER_PRIVATE_KEY is the key of the Hardhat node's dev account #2 .*on chain 8453 anyone could sign with it/,
    );
    const ownRelayerKey = generatePrivateKey();
    for (const [index, key] of [
      [1, LOCAL_ARBITER_PRIVATE_KEY],
      [0, devKey(0)],
      [19, devKey(19).toUpperCase().replace("0X", "0x")],
    ] as const) {
      expect(
        () =>
          loadConfig({
            ...base,
            CHAIN_ID: "84532",
            RELAYER_PRIVATE_KEY: ownRelayerKey,
            ARBITER_API_KEY: "a".repeat(64),
            ARBITER_PRIVATE_KEY: key,
          }),
        `#${index}`,
      ).toThrow(new RegExp(`ARBITER_PRIVATE_KEY is the key of the Hardhat node's dev account #${index} `));
    }
    // Both at once: both named.
    expect(() =>
      loadConfig({
        ...base,
        CHAIN_ID: "8453",
        RELAYER_PRIVATE_KEY: devKey(5),
        ARBITER_PRIVATE_KEY: devKey(6),
      }),
    ).toThrow(/RELAYER_PRIVATE_KEY .*#5 [\s\S]*ARBITER_PRIVATE_KEY .*#6 /);
  });

  it("takes keys of the service's own off the local chain, and the dev accounts' on it", () => {
    const own = { RELAYER_PRIVATE_KEY: generatePrivateKey(), ARBITER_PRIVATE_KEY: generatePrivateKey() };
    const offLocal = loadConfig({ ...base, CHAIN_ID: "8453", ...own, ARBITER_API_KEY: "a".repeat(64) });
    expect(offLocal.relayerPrivateKey).toBe(own.RELAYER_PRIVATE_KEY);
    const local = loadConfig({
      ...base,
      RELAYER_PRIVATE_KEY: devKey(7),
      ARBITER_PRIVATE_KEY: LOCAL_ARBITER_PRIVATE_KEY,
    });
    expect(local.relayerPrivateKey).toBe(devKey(7));
    expect(loadConfig(base).relayerPrivateKey).toBe(LOCAL_RELAYER_PRIVATE_KEY);
  });
});

describe("apiProcessesOf", () => {
  it("is 1 unless API_PROCESSES asks for more, up to 64", () => {
    expect(apiProcessesOf({})).toBe(1);
    expect(apiProcessesOf({ API_PROCESSES: "" })).toBe(1);
    expect(apiProcessesOf({ API_PROCESSES: "2" })).toBe(2);
    expect(apiProcessesOf({ API_PROCESSES: "64" })).toBe(64);
  });

  it("refuses what is not a whole number from 1 to 64, naming the variable", () => {
    for (const value of ["0", "65", "1.5", "-2", "two", "2x"]) {
      expect(() => apiProcessesOf({ API_PROCESSES: value }), value).toThrow(/API_PROCESSES.*1 to 64/);
    }
  });
});
