import { createRequire } from "node:module";
import hardhatToolboxViemPlugin from "@nomicfoundation/hardhat-toolbox-viem";
import { configVariable, defineConfig } from "hardhat/config";

// Hardhat cannot download compilers on these machines: use the wasm build shipped in the `solc`
// npm package. `version` must match the installed package.
const solcPath = createRequire(import.meta.url).resolve("solc/soljson.js");
const compiler = {
  version: "0.8.28",
  path: solcPath,
  // Cancun for transient storage (the reentrancy guard); Base supports it. The legacy pipeline, not
  // viaIR: viaIR saves ~1k gas a transaction but makes the wasm compiler take over ten minutes on the
  // test suite, and tests should run against the bytecode that is deployed.
  settings: {
    evmVersion: "cancun",
    optimizer: { enabled: true, runs: 10_000 },
  },
};

export default defineConfig({
  plugins: [hardhatToolboxViemPlugin],
  solidity: {
    profiles: {
      default: compiler,
      production: compiler,
    },
  },
  paths: {
    tests: { solidity: "contracts/test", nodejs: "test" },
  },
  test: {
    solidity: {
      fuzz: { runs: 256 },
      // 64 runs in the test suite; `pnpm bench:invariants` sets INVARIANT_RUNS (10,000 by default).
      invariant: { runs: Number(process.env.INVARIANT_RUNS ?? 64), depth: 64, failOnRevert: false },
    },
  },
  networks: {
    localhost: {
      type: "http",
      chainType: "op",
      url: process.env.RPC_URL ?? "http://127.0.0.1:8545",
    },
    baseSepolia: {
      type: "http",
      chainType: "op",
      chainId: 84532,
      url: configVariable("BASE_SEPOLIA_RPC_URL"),
      accounts: [configVariable("DEPLOYER_PRIVATE_KEY")],
    },
    base: {
      type: "http",
      chainType: "op",
      chainId: 8453,
      url: configVariable("BASE_RPC_URL"),
      accounts: [configVariable("DEPLOYER_PRIVATE_KEY")],
    },
  },
});
