/** Chains the marketplace runs on, and the third-party contracts it uses on each. */

export const BASE_CHAIN_ID = 8453;
export const BASE_SEPOLIA_CHAIN_ID = 84532;
export const LOCAL_CHAIN_ID = 31337;

/** Circle's USDC. Local chains use the MockUSDC from their deployments file instead. */
export const USDC_ADDRESSES: Readonly<Record<number, `0x${string}`>> = {
  [BASE_CHAIN_ID]: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
  [BASE_SEPOLIA_CHAIN_ID]: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
};

/**
 * USDC's EIP-712 domain name and version, which EIP-3009 signatures (funding without ETH) are made
 * over. Circle's Base deployment says "USD Coin", its Base Sepolia one "USDC"; the local MockUSDC
 * copies Base's.
 */
export const USDC_EIP712: Readonly<Record<number, { name: string; version: string }>> = {
  [BASE_CHAIN_ID]: { name: "USD Coin", version: "2" },
  [BASE_SEPOLIA_CHAIN_ID]: { name: "USDC", version: "2" },
  [LOCAL_CHAIN_ID]: { name: "USD Coin", version: "2" },
};

/**
 * The official ERC-8004 registries (the same vanity addresses on every mainnet, and on every
 * testnet). Local chains deploy their own (see the deployments file).
 */
export const ERC8004_ADDRESSES: Readonly<
  Record<number, { identityRegistry: `0x${string}`; reputationRegistry: `0x${string}` }>
> = {
  [BASE_CHAIN_ID]: {
    identityRegistry: "0x8004A169FB4a3325136EB29fA0ceB6D2e539a432",
    reputationRegistry: "0x8004BAa17C55a88189AE136b182e5fdA19dE9b63",
  },
  [BASE_SEPOLIA_CHAIN_ID]: {
    identityRegistry: "0x8004A818BFB912233c491871b3d84c89A494BD9e",
    reputationRegistry: "0x8004B663056A597Dffe9eCcC1965A193B7388713",
  },
};

/** USDC has 6 decimals: 1 USDC = 1,000,000 wei. */
export const USDC_DECIMALS = 6;
