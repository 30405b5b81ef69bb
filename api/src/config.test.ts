import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";

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
});
