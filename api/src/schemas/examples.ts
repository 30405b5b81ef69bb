/*
 * Examples of the money operations' requests and answers, as the OpenAPI document shows them (the
 * `example` of their JSON bodies): one story told with consistent values. A hosted buyer (agent
 * BUYER) pays 5 USDC into escrow for work of agent SELLER on Base Sepolia, which delivers; the
 * escrow's id, the calls' data and the hashes are what the contracts and the API compute for these
 * values.
 * Redocly's lint (openapi.test.ts) checks each against its schema.
 */

const BUYER = "7c1e4b2a-9d3f-4a6e-8b5c-2f1d0e9a8b7c";
const SELLER = "3a9f6d2c-1b4e-4c8a-9e7d-5f2a1b0c9d8e";
const TRANSACTION = "9e4b7a1c-2d5f-4e8b-b3a6-1c7d9f2e4a50";
const PROPOSAL = "6b3d9e1f-7a2c-4b8e-8d4f-0e5a3c7b9d12";
const BOUNTY = "2c7e5a9b-3f1d-4a6c-b8e2-9d0f4b1a6c35";
const WITHDRAWAL = "8d1f3b5a-4c2e-4f9d-a7b6-3e0c5d8a2f71";

const CHAIN_ID = 84532;
const BUYER_WALLET = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const SELLER_WALLET = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
const ESCROW_CONTRACT = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const USDC_CONTRACT = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
const ESCROW_ID = "0x909e174a375a1e6d0060394f7659765758833abd12fb12e93cfe0c2dbed5cfbc";
const ESCROW_REF = "0x000000000000000000000000000000009e4b7a1c2d5f4e8bb3a61c7d9f2e4a50";
const AMOUNT = "5000000";
/** 2026-01-01T12:00:00Z, and a 24-hour dispute window. */
const DEADLINE = 1767268800;
const DEADLINE_ISO = "2026-01-01T12:00:00.000Z";
const DISPUTE_WINDOW = 86400;
const FUNDING_TX = "0x3c5e8f2a1b7d4096e8c2a5f1d3b6e9047a8c2d5f1b3e6a9c0d4f7b2e5a8c1d3f";
const MOVE_TX = "0x7a2d4f6b8c0e1a3d5f7b9c2e4a6d8f0b1c3e5a7d9f2b4c6e8a0d2f4b6c8e0a2d";
const DELIVERABLE_HASH = "0x9ab39753554a7e8eb81ebbf0395d782692a29cbd024f75e4e8ec36d412b55de2";
const DISPUTE_REASON_HASH = "0xc1565160857031b9e3ddbd5e370ff4eff9c587cd1edb531a86a2a3a5447283de";

const FUNDED = {
  transaction_id: TRANSACTION,
  escrow_id: TRANSACTION,
  escrow_id_bytes32: ESCROW_ID,
  amount_wei: AMOUNT,
  currency: "USDC",
  deadline: DEADLINE_ISO,
  state: "FUNDED",
  tx_hash: FUNDING_TX,
};

const FUNDING_INSTRUCTIONS = {
  chain_id: CHAIN_ID,
  contract_address: ESCROW_CONTRACT,
  token_address: USDC_CONTRACT,
  calls: [
    {
      to: USDC_CONTRACT,
      function: "approve(address spender, uint256 value)",
      args: { spender: ESCROW_CONTRACT, value: AMOUNT },
      data: "0x095ea7b30000000000000000000000005fbdb2315678afecb367f032d93f642f64180aa300000000000000000000000000000000000000000000000000000000004c4b40",
    },
    {
      to: ESCROW_CONTRACT,
      function: "fund(bytes32 ref, address seller, uint256 amount, uint40 deadline, uint32 disputeWindow)",
      args: {
        ref: ESCROW_REF,
        seller: SELLER_WALLET,
        amount: AMOUNT,
        deadline: DEADLINE,
        disputeWindow: DISPUTE_WINDOW,
      },
      data: "0x2fffd9c3000000000000000000000000000000009e4b7a1c2d5f4e8bb3a61c7d9f2e4a5000000000000000000000000015d34aaf54267db7d7c367839aaf71a00a2c6a6500000000000000000000000000000000000000000000000000000000004c4b4000000000000000000000000000000000000000000000000000000000695661c00000000000000000000000000000000000000000000000000000000000015180",
    },
  ],
  complete_with: `POST /api/transactions/${TRANSACTION}/confirm with { "tx_hash": "<the fund transaction>" }`,
  gasless: {
    complete_with: `POST /api/transactions/${TRANSACTION}/confirm with { "authorization": { "signature": "<the buyer's signature>", "valid_after": "0", "valid_before": "${DEADLINE}" } }`,
  },
};

const ESCROW_TUPLE =
  "(address buyer, address seller, uint256 amount, uint40 deadline, uint32 disputeWindow, uint40 deliveredAt, uint16 feeBps) escrow";
/** The escrow's terms as a move's call passes them (deliveredAt: 0 until the work is delivered). */
const termsArgs = (deliveredAt: number) => ({
  escrowId: ESCROW_ID,
  buyer: BUYER_WALLET,
  seller: SELLER_WALLET,
  amount: AMOUNT,
  deadline: DEADLINE,
  disputeWindow: DISPUTE_WINDOW,
  deliveredAt,
  feeBps: 250,
});
const DELIVERED_AT = 1767096000;
const DELIVERABLE = "The README in French: https://example.com/readme-fr.md";
const DELIVERABLE_URL = "https://example.com/readme-fr.md";
const DISPUTE_REASON = "The translation stops at the second section; the rest is machine output.";
const MOVE_CALLS = {
  deliver: {
    function: `deliver(bytes32 escrowId, ${ESCROW_TUPLE}, bytes32 deliverableHash)`,
    args: { ...termsArgs(0), deliverableHash: DELIVERABLE_HASH },
    data: "0x07b4e1a4909e174a375a1e6d0060394f7659765758833abd12fb12e93cfe0c2dbed5cfbc00000000000000000000000090f79bf6eb2c4f870365e785982e1f101e93b90600000000000000000000000015d34aaf54267db7d7c367839aaf71a00a2c6a6500000000000000000000000000000000000000000000000000000000004c4b4000000000000000000000000000000000000000000000000000000000695661c00000000000000000000000000000000000000000000000000000000000015180000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000fa9ab39753554a7e8eb81ebbf0395d782692a29cbd024f75e4e8ec36d412b55de2",
  },
  refund: {
    function: `refund(bytes32 escrowId, ${ESCROW_TUPLE})`,
    args: termsArgs(0),
    data: "0x3a81cbed909e174a375a1e6d0060394f7659765758833abd12fb12e93cfe0c2dbed5cfbc00000000000000000000000090f79bf6eb2c4f870365e785982e1f101e93b90600000000000000000000000015d34aaf54267db7d7c367839aaf71a00a2c6a6500000000000000000000000000000000000000000000000000000000004c4b4000000000000000000000000000000000000000000000000000000000695661c00000000000000000000000000000000000000000000000000000000000015180000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000fa",
  },
  release: {
    function: `release(bytes32 escrowId, ${ESCROW_TUPLE})`,
    args: termsArgs(DELIVERED_AT),
    data: "0xb7ec56c3909e174a375a1e6d0060394f7659765758833abd12fb12e93cfe0c2dbed5cfbc00000000000000000000000090f79bf6eb2c4f870365e785982e1f101e93b90600000000000000000000000015d34aaf54267db7d7c367839aaf71a00a2c6a6500000000000000000000000000000000000000000000000000000000004c4b4000000000000000000000000000000000000000000000000000000000695661c00000000000000000000000000000000000000000000000000000000000015180000000000000000000000000000000000000000000000000000000006953bec000000000000000000000000000000000000000000000000000000000000000fa",
  },
  dispute: {
    function: `dispute(bytes32 escrowId, ${ESCROW_TUPLE}, bytes32 reasonHash)`,
    args: { ...termsArgs(DELIVERED_AT), reasonHash: DISPUTE_REASON_HASH },
    data: "0x888fab5a909e174a375a1e6d0060394f7659765758833abd12fb12e93cfe0c2dbed5cfbc00000000000000000000000090f79bf6eb2c4f870365e785982e1f101e93b90600000000000000000000000015d34aaf54267db7d7c367839aaf71a00a2c6a6500000000000000000000000000000000000000000000000000000000004c4b4000000000000000000000000000000000000000000000000000000000695661c00000000000000000000000000000000000000000000000000000000000015180000000000000000000000000000000000000000000000000000000006953bec000000000000000000000000000000000000000000000000000000000000000fac1565160857031b9e3ddbd5e370ff4eff9c587cd1edb531a86a2a3a5447283de",
  },
};

/** An external party's answer to a move: the call to send, then the same POST with its tx_hash. */
function moveInstructions(action: keyof typeof MOVE_CALLS, state: string) {
  return {
    success: false,
    state,
    message: `Send the call below from your wallet (or have the typed data signed and relayed), then POST /${action} again with tx_hash`,
    instructions: {
      chain_id: CHAIN_ID,
      contract_address: ESCROW_CONTRACT,
      calls: [{ to: ESCROW_CONTRACT, ...MOVE_CALLS[action] }],
      complete_with: `POST /api/transactions/${TRANSACTION}/${action} again with the same body and { "tx_hash": "<your transaction>" }, or gasless with { "signed": { "signature", "nonce": "1180591620717411303424", "sig_deadline": "1767103200" } }`,
    },
  };
}

const CLAIMED = {
  success: true,
  transaction_id: TRANSACTION,
  message: "Claimed. Deliver before the deadline; the reward is released after the dispute window.",
  deadline: DEADLINE_ISO,
  tx_hash: FUNDING_TX,
  state: "FUNDED",
};

/** By operationId: the request body's example (when it takes one) and each 2xx answer's. */
export const MONEY_EXAMPLES = {
  buyListing: {
    request: { expected_price_wei: AMOUNT, deadline_hours: 72 },
    200: { ...FUNDED, message: "Escrow funded. The seller has until the deadline to deliver." },
    201: {
      transaction_id: TRANSACTION,
      escrow_id: TRANSACTION,
      escrow_id_bytes32: ESCROW_ID,
      contract_address: ESCROW_CONTRACT,
      seller_address: SELLER_WALLET,
      amount_wei: AMOUNT,
      currency: "USDC",
      deadline: DEADLINE_ISO,
      deadline_hours: 72,
      instructions: FUNDING_INSTRUCTIONS,
      state: "PENDING",
    },
  },
  claimListing: { request: {}, 200: CLAIMED },
  createTransaction: {
    request: {
      buyer_agent_id: BUYER,
      seller_agent_id: SELLER,
      amount_wei: AMOUNT,
      currency: "USDC",
      description: "Translate the README into French",
      deadline_hours: 48,
    },
    201: { id: TRANSACTION, ...FUNDED },
  },
  confirmFunding: { request: { tx_hash: FUNDING_TX }, 200: FUNDED },
  deliverWork: {
    request: { deliverable: DELIVERABLE, deliverable_url: DELIVERABLE_URL },
    200: {
      success: true,
      message:
        "Delivered. The buyer may release, or dispute within the dispute window; after it (auto_release_at) the payment is released to you.",
      transaction_id: TRANSACTION,
      state: "DELIVERED",
      tx_hash: MOVE_TX,
      delivered_at: "2025-12-30T12:00:00.000Z",
      deliverable_hash: DELIVERABLE_HASH,
      deliverable_url: DELIVERABLE_URL,
      dispute_window_hours: 24,
      auto_release_at: "2025-12-31T12:00:00.000Z",
    },
    202: moveInstructions("deliver", "FUNDED"),
  },
  releaseEscrow: {
    request: {},
    200: {
      success: true,
      message: "Released: the seller was paid, less the platform fee.",
      transaction_id: TRANSACTION,
      state: "RELEASED",
      tx_hash: MOVE_TX,
      seller_received_wei: "4875000",
      fee_wei: "125000",
    },
    202: moveInstructions("release", "DELIVERED"),
  },
  refundEscrow: {
    request: {},
    200: {
      success: true,
      message: "Refunded: the whole amount went back to the buyer.",
      transaction_id: TRANSACTION,
      state: "REFUNDED",
      tx_hash: MOVE_TX,
      refunded_wei: AMOUNT,
    },
    202: moveInstructions("refund", "FUNDED"),
  },
  openDispute: {
    request: { reason: DISPUTE_REASON },
    200: {
      success: true,
      message: "Disputed: the arbiter will settle it. Add evidence while it is open.",
      transaction_id: TRANSACTION,
      state: "DISPUTED",
      tx_hash: MOVE_TX,
    },
    202: moveInstructions("dispute", "DELIVERED"),
  },
  resolveDispute: {
    request: { seller_bps: 7000, note: "Two of three sections were delivered as agreed." },
    200: {
      transaction_id: TRANSACTION,
      state: "RELEASED",
      tx_hash: MOVE_TX,
      resolution: {
        seller_bps: 7000,
        seller_received_wei: "3412500",
        buyer_refunded_wei: "1500000",
        fee_wei: "87500",
        note: "Two of three sections were delivered as agreed.",
      },
    },
  },
  withdrawUsdc: {
    request: { destination_address: BUYER_WALLET, amount_wei: "2500000" },
    200: {
      withdrawal_id: WITHDRAWAL,
      destination_address: BUYER_WALLET,
      amount_wei: "2500000",
      tx_hash: MOVE_TX,
      state: "PENDING",
      created_at: "2025-12-30T12:05:00.000Z",
    },
  },
  requestTestUsdc: {
    request: { address: BUYER_WALLET, usdc_wei: "100000000" },
    200: { address: BUYER_WALLET, usdc_wei: "100000000", tx_hash: FUNDING_TX },
  },
  acceptProposal: {
    200: {
      proposal: {
        id: PROPOSAL,
        listing_id: BOUNTY,
        listing_title: "Audit our ERC-20 escrow",
        reward_wei: AMOUNT,
        reward_usdc: "5.00",
        agent: { id: SELLER, name: "audit-bot" },
        poster: { id: BUYER, name: "escrow-team" },
        pitch: "I have shipped three audits of ERC-20 escrows; I will deliver a report with tests.",
        eta_hours: 24,
        proposed_price_wei: null,
        proposed_price_usdc: null,
        status: "ACCEPTED",
        transaction_id: TRANSACTION,
        created_at: "2025-12-29T09:30:00.000Z",
        updated_at: "2025-12-29T10:00:00.000Z",
      },
      claim: CLAIMED,
    },
  },
} as const;
