import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";

/**
 * Deploys the escrow against an existing USDC (Base, Base Sepolia).
 *
 * Parameters (ignition/parameters/<chain>.json): `token` (required), `feeBps` (default 100 = 1 %),
 * `maxFeeBps` (default 1,000 = 10 %), `feeRecipient`, `arbiter`, `operator` and `owner`
 * (default: the deployer).
 */
export default buildModule("AgentEscrow", (m) => {
  const deployer = m.getAccount(0);
  const escrow = m.contract("AgentEscrow", [
    m.getParameter<string>("token"),
    m.getParameter("maxFeeBps", 1_000),
    m.getParameter("feeBps", 100),
    m.getParameter("feeRecipient", deployer),
    m.getParameter("arbiter", deployer),
    m.getParameter("operator", deployer),
    m.getParameter("owner", deployer),
  ]);
  return { escrow };
});
