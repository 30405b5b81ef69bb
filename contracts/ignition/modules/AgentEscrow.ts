import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";
import { escrowArgs } from "../escrowArgs.ts";

/**
 * Deploys the escrow against Circle's USDC on Base or Base Sepolia. Parameters:
 * `ignition/parameters/<network>.json` (`token` is required; see escrowArgs.ts for the rest).
 */
export default buildModule("AgentEscrow", (m) => {
  const deployer = m.getAccount(0);
  const escrow = m.contract(
    "AgentEscrow",
    escrowArgs(m, m.getParameter<string>("token"), { arbiter: deployer, operator: deployer }),
  );
  return { escrow };
});
