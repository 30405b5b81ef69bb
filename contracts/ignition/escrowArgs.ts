import type { AccountRuntimeValue, ArgumentType, IgnitionModuleBuilder } from "@nomicfoundation/ignition-core";

/**
 * Constructor arguments of AgentEscrow from the module's parameters: `feeBps` (default 100 = 1 %),
 * `maxFeeBps` (default 1,000 = 10 %), `feeRecipient` and `owner` (default: the deployer), and
 * `arbiter` / `operator` (defaults given by the calling module).
 */
export function escrowArgs(
  m: IgnitionModuleBuilder,
  token: ArgumentType,
  defaults: { arbiter: AccountRuntimeValue; operator: AccountRuntimeValue },
): ArgumentType[] {
  const deployer = m.getAccount(0);
  return [
    token,
    m.getParameter("maxFeeBps", 1_000),
    m.getParameter("feeBps", 100),
    m.getParameter("feeRecipient", deployer),
    m.getParameter("arbiter", defaults.arbiter),
    m.getParameter("operator", defaults.operator),
    m.getParameter("owner", deployer),
  ];
}
