import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";
import { escrowArgs } from "../escrowArgs.ts";

/**
 * Everything a local chain needs: MockUSDC (faucet token), the ERC-8004 registries and the escrow.
 * Roles on the Hardhat node's well-known accounts: #0 owner, deployer and fee recipient, #1
 * arbiter, #2 operator (the API's relayer).
 */
export default buildModule("LocalMarketplace", (m) => {
  const usdc = m.contract("MockUSDC", [m.getAccount(0)]);
  const identityRegistry = m.contract("IdentityRegistry", []);
  const reputationRegistry = m.contract("ReputationRegistry", [identityRegistry]);
  const escrow = m.contract(
    "AgentEscrow",
    escrowArgs(m, usdc, { arbiter: m.getAccount(1), operator: m.getAccount(2) }),
  );
  return { usdc, identityRegistry, reputationRegistry, escrow };
});
