import { describe, expect, it } from "vitest";
import { apiProcessesOf, defaultPoolSize, loadConfig } from "./config.ts";

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
