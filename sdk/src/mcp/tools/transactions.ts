import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { moveWithWallet, WALLET_MOVES, type WalletMove, type WalletMoveParameters } from "../../byob.ts";
import { TRANSACTION_STATES } from "../../enums.ts";
import type { Session } from "../session.ts";
import { toolResult } from "../tool-result.ts";
import { cursor, gasless, id, limit, movesMoney, readOnly, transactionHash, txHash, writes } from "./fields.ts";

/* Tools of the transactions (escrows): read them, and the moves of buyer and seller. */

/** How an escrow move is made for this session: with its wallet (external), else by the API alone. */
function makeMove<M extends WalletMove>(
  session: Session,
  move: M,
  transactionId: string,
  body: WalletMoveParameters<M>,
  options: { txHash?: string; gasless?: boolean },
) {
  if (session.signer && !options.txHash) {
    return moveWithWallet(session.client, session.signer, transactionId, move, body, { gasless: options.gasless });
  }
  const action = WALLET_MOVES[move] as (client: Session["client"], params: object) => Promise<unknown>;
  return action(session.client, { ...body, id: transactionId, ...(options.txHash && { tx_hash: options.txHash }) });
}

const EXTERNAL_STEP =
  "External agents: with a configured wallet the on-chain step is sent (or signed, gasless) and completed; without one the answer is `instructions` (success false): send its calls, then call again with tx_hash.";

export function registerTransactionTools(server: McpServer, session: Session): void {
  const { client } = session;

  server.registerTool(
    "list_transactions",
    {
      title: "List transactions",
      description:
        "Transactions (escrows) where an agent is buyer or seller, newest first: yours unless agent_id is given; filter by state. Each has id, state, amount (amount_wei, amount_usdc), buyer, seller, deadline, delivered_at, dispute_window_hours. Use it to find what waits for you: FUNDED where you are the seller (deliver), DELIVERED where you are the buyer (release or dispute). Answers transactions and next_cursor.",
      inputSchema: {
        agent_id: id("agent").optional().describe("Whose transactions (default: yours)"),
        state: z.enum(TRANSACTION_STATES).optional().describe("Only transactions in this state"),
        limit,
        cursor,
      },
      annotations: readOnly,
    },
    (input) =>
      toolResult(async () =>
        client.listTransactions({ ...input, agent_id: input.agent_id ?? (await session.ownAgentId()) }),
      ),
  );

  server.registerTool(
    "get_transaction",
    {
      title: "A transaction",
      description:
        "One transaction by id, as the chain has it: state (PENDING: not funded yet; FUNDED: paid into escrow, waiting for delivery; DELIVERED: delivered, the buyer may release or dispute until the dispute window ends, then it is released automatically; RELEASED: the seller is paid; REFUNDED: the buyer got the money back; DISPUTED: an arbiter decides), amount, buyer, seller, deadline, delivered_at, dispute_window_hours, dispute, resolution and tx hashes. Read it before a move. 404: no such transaction.",
      inputSchema: { transaction_id: id("transaction") },
      annotations: readOnly,
    },
    (input) => toolResult(() => client.getTransaction({ id: input.transaction_id })),
  );

  server.registerTool(
    "get_deliverable",
    {
      title: "Read what was delivered",
      description:
        "The work the seller delivered for a transaction (content, and deliverable_url if a link was given), and deliverable_hash, the hash recorded on chain: keccak256 of the content, or keccak256(abi.encode(content, deliverable_url)) with a link. Buyers: read it before you release or dispute. Parties only (403 otherwise); 404 before delivery.",
      inputSchema: { transaction_id: id("transaction") },
      annotations: readOnly,
    },
    (input) => toolResult(() => client.getDeliverable({ id: input.transaction_id })),
  );

  server.registerTool(
    "get_timeline",
    {
      title: "A transaction's history",
      description:
        "Everything that happened to a transaction, in order: on-chain events (funded, delivered, released, ..., with tx hashes and blocks) and off-chain ones (evidence, reviews). Parties only (403 otherwise).",
      inputSchema: { transaction_id: id("transaction") },
      annotations: readOnly,
    },
    (input) => toolResult(() => client.getTimeline({ id: input.transaction_id })),
  );

  server.registerTool(
    "confirm_funding",
    {
      title: "Confirm your funding",
      description:
        "External buyers or bounty posters without a configured wallet: after sending the approve and fund calls of a PENDING transaction's `instructions` (from buy_listing or create_listing), hand in the fund transaction's hash; the escrow is verified on chain and the transaction becomes FUNDED. 400: the hash does not fund this escrow; 409: it is not PENDING or the hash was already used.",
      inputSchema: {
        transaction_id: id("transaction"),
        tx_hash: transactionHash.describe("The transaction that funded the escrow"),
      },
      annotations: movesMoney,
    },
    (input) => toolResult(() => client.confirmFunding({ id: input.transaction_id, tx_hash: input.tx_hash })),
  );

  server.registerTool(
    "deliver",
    {
      title: "Deliver your work",
      description: [
        "Seller or bounty hunter: deliver the work of a FUNDED transaction. The content is kept by the marketplace (the buyer reads it with get_deliverable) and its hash goes on chain. The buyer may then release or dispute; after the dispute window (dispute_window_hours) the payment is released to you automatically.",
        EXTERNAL_STEP,
        "Answers state DELIVERED, delivered_at, deliverable_hash, dispute_window_hours, tx_hash. Refusals: 403 (you are not the seller), 409 (not FUNDED: state says what it is).",
      ].join("\n"),
      inputSchema: {
        transaction_id: id("transaction"),
        deliverable: z.string().min(1).describe("The work itself, or a link to it"),
        deliverable_url: z
          .string()
          .url()
          .optional()
          .describe("A link to the work as well (http or https); kept with it and covered by the on-chain hash"),
        tx_hash: txHash,
        gasless,
      },
      annotations: writes,
    },
    (input) =>
      toolResult(() =>
        makeMove(
          session,
          "deliver",
          input.transaction_id,
          {
            deliverable: input.deliverable,
            ...(input.deliverable_url !== undefined && { deliverable_url: input.deliverable_url }),
          },
          {
            txHash: input.tx_hash,
            gasless: input.gasless,
          },
        ),
      ),
  );

  server.registerTool(
    "release",
    {
      title: "Release the payment",
      description: [
        "Buyer: pay the seller of a DELIVERED (or DISPUTED) transaction: the escrow sends the amount, less the platform fee, to the seller. Final. Release only after reading the deliverable (get_deliverable) and finding it good; otherwise dispute before the dispute window closes.",
        "Seller: once the dispute window of a DELIVERED transaction has closed (its auto_release_at), release your own payment; the marketplace sends it (the keeper would soon too).",
        EXTERNAL_STEP,
        "Answers state RELEASED, seller_received_wei/_usdc, fee_wei/_usdc, tx_hash. Refusals: 403 (not a party), 409 (not delivered yet, or a seller before auto_release_at: state and auto_release_at say which).",
      ].join("\n"),
      inputSchema: { transaction_id: id("transaction"), tx_hash: txHash, gasless },
      annotations: movesMoney,
    },
    (input) =>
      toolResult(() =>
        makeMove(session, "release", input.transaction_id, {}, { txHash: input.tx_hash, gasless: input.gasless }),
      ),
  );

  server.registerTool(
    "refund",
    {
      title: "Refund the buyer",
      description: [
        "Give the buyer its money back, whole. The buyer may refund a FUNDED transaction (nothing delivered yet); the seller may refund a FUNDED, DELIVERED or DISPUTED one (e.g. it cannot do the work). Final.",
        EXTERNAL_STEP,
        "Answers state REFUNDED, refunded_wei/_usdc, tx_hash. Refusals: 403 (not a party, or not allowed for your side), 409 (the state does not allow it).",
      ].join("\n"),
      inputSchema: { transaction_id: id("transaction"), tx_hash: txHash, gasless },
      annotations: movesMoney,
    },
    (input) =>
      toolResult(() =>
        makeMove(session, "refund", input.transaction_id, {}, { txHash: input.tx_hash, gasless: input.gasless }),
      ),
  );

  server.registerTool(
    "dispute",
    {
      title: "Open a dispute",
      description: [
        "Buyer or seller: stop the automatic release and ask the arbiter to decide, on a FUNDED transaction or a DELIVERED one inside its dispute window. Give the reason; then add evidence (add_evidence). The arbiter splits the amount (resolution in get_transaction).",
        EXTERNAL_STEP,
        "Answers state DISPUTED, tx_hash. Refusals: 403 (not a party), 409 (the state does not allow it, or the dispute window is over).",
      ].join("\n"),
      inputSchema: {
        transaction_id: id("transaction"),
        reason: z.string().min(1).describe("What is wrong, for the arbiter"),
        tx_hash: txHash,
        gasless,
      },
      annotations: movesMoney,
    },
    (input) =>
      toolResult(() =>
        makeMove(
          session,
          "dispute",
          input.transaction_id,
          { reason: input.reason },
          {
            txHash: input.tx_hash,
            gasless: input.gasless,
          },
        ),
      ),
  );

  server.registerTool(
    "add_evidence",
    {
      title: "Add evidence to a dispute",
      description:
        "Either party of a DISPUTED transaction: give the arbiter evidence (text, and a url if any). Answers evidence_id. 409: the transaction is not DISPUTED; 403: not a party.",
      inputSchema: {
        transaction_id: id("transaction"),
        content: z.string().min(1).describe("The evidence, in words"),
        url: z.url().optional().describe("A link to more (a file, a page)"),
      },
      annotations: writes,
    },
    (input) =>
      toolResult(() =>
        client.addEvidence({
          id: input.transaction_id,
          content: input.content,
          ...(input.url !== undefined && { url: input.url }),
        }),
      ),
  );
}
