import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { amountFromInput } from "../amounts.ts";
import type { Session } from "../session.ts";
import { toolResult } from "../tool-result.ts";
import { address, id, movesMoney, readOnly, usdcAmount, weiAmount, writes } from "./fields.ts";

/** What get_test_usdc mints unless asked for another amount: 100 USDC. */
const TEST_USDC_WEI = 100_000_000n;

/* Tools of the wallet: its balance, the spending caps its owner set, withdrawals from a hosted agent's wallet and the x402 payments it signs. */

export function registerWalletTools(server: McpServer, session: Session): void {
  const { client } = session;

  server.registerTool(
    "get_balance",
    {
      title: "Wallet balance",
      description:
        "The USDC and ETH an agent's wallet holds on chain (yours unless agent_id is given): usdc_wei with `usdc` (USDC, 6 decimals), eth_wei, and the API's usdc_formatted and eth_formatted. Check it before buying or posting a bounty; money in escrow is not in it.",
      inputSchema: { agent_id: id("agent").optional().describe("Whose wallet (default: yours)") },
      annotations: readOnly,
    },
    (input) =>
      toolResult(async () => client.getWalletBalance({ agent_id: input.agent_id ?? (await session.ownAgentId()) })),
  );

  server.registerTool(
    "get_spending_limits",
    {
      title: "Your spending caps",
      description:
        "The caps your owner set on what the marketplace spends for you (hosted agents): per_purchase_wei (one buy, bounty, escrow or withdrawal), per_day_wei (the last 24 hours), approval_above_wei (above it a move waits for your owner's approval: AWAITING_APPROVAL). Answers them (null: no cap) with spent_24h_wei, remaining_24h_wei, max_move_wei (the most one move may spend now) and pending_approvals. Check it before a large purchase; only your owner changes them.",
      annotations: readOnly,
    },
    () => toolResult(() => client.getMySpendingLimits()),
  );

  server.registerTool(
    "withdraw",
    {
      title: "Withdraw USDC",
      description:
        "Hosted agents: send USDC from the wallet the marketplace keeps for you to another address (amount_usdc or amount_wei, exactly one). External agents hold their own wallet and are refused (400). Answers withdrawal_id, tx_hash and state (PENDING, CONFIRMED, FAILED). To another address than your owner's, your owner's spending caps hold: 402 spending_limit over one, and above the approval threshold state AWAITING_APPROVAL with an `approval` (sent once your owner approves). Refusals: 402 insufficient_balance (shortfall_usdc), 402 spending_limit, 400 (bad address or amount).",
      inputSchema: {
        destination_address: address.describe("Where the USDC goes"),
        amount_usdc: usdcAmount("The amount").optional(),
        amount_wei: weiAmount("The amount").optional(),
      },
      annotations: movesMoney,
    },
    (input) =>
      toolResult(() =>
        client.withdrawUsdc({
          destination_address: input.destination_address,
          amount_wei: amountFromInput(input, "amount", true).toString(),
        }),
      ),
  );

  server.registerTool(
    "sign_x402_payment",
    {
      title: "Pay an x402 service (hosted agents)",
      description: [
        "Hosted agents: a service (any x402 service, or a listing's x402 URL: see x402_payment) answered your request 402 with a PAYMENT-REQUIRED header. Pass that header's value; the marketplace signs the payment from your wallet (USDC on this chain only) and answers payment_signature: send your request again with the header PAYMENT-SIGNATURE: <payment_signature>, within valid_before (at most 10 minutes).",
        "Your owner's spending caps hold: 402 spending_limit over one; above the approval threshold state AWAITING_APPROVAL with an `approval` (once approved, the approval.approved notification carries the payment_signature). The payment counts in your day's spending whether or not the service settles it, and holds that much of your balance until it does or expires.",
        "Refusals: 402 insufficient_balance, 402 spending_limit, 400 x402_unpayable (no option in USDC on this chain), 400 (not a PAYMENT-REQUIRED; external agents sign their own payments).",
      ].join("\n"),
      inputSchema: {
        payment_required: z
          .string()
          .min(1)
          .max(16_384)
          .describe("The PAYMENT-REQUIRED header's value of the 402 answer (base64), as received"),
      },
      annotations: movesMoney,
    },
    (input) => toolResult(() => client.signX402Payment({ payment_required: input.payment_required })),
  );

  if (session.localChain) {
    server.registerTool(
      "get_test_usdc",
      {
        title: "Get test USDC (local development chain only)",
        description:
          "The local development chain's faucet mints test USDC to your wallet (hosted or external), so you can buy and post bounties while you try the marketplace. Answers address, usdc_wei and tx_hash. Only where the marketplace runs on its local chain, for clients on its own machine; elsewhere 404.",
        inputSchema: {
          amount_usdc: usdcAmount("How much (default 100, at most 1000000)").optional(),
          amount_wei: weiAmount("How much").optional(),
        },
        annotations: writes,
      },
      (input) =>
        toolResult(async () => {
          const usdcWei = amountFromInput(input, "amount") ?? TEST_USDC_WEI;
          const { wallet_address } = await client.getMe();
          return client.requestTestUsdc({ address: wallet_address, usdc_wei: usdcWei.toString() });
        }),
    );
  }

  server.registerTool(
    "list_withdrawals",
    {
      title: "Your withdrawals",
      description: "Your withdrawals, newest first: withdrawal_id, destination, amount, tx_hash and state.",
      annotations: readOnly,
    },
    () => toolResult(() => client.listWithdrawals()),
  );
}
