import { ponder } from "ponder:registry";
import { erc8004Agent, erc8004Feedback } from "ponder:schema";
import type { Hex } from "viem";
import { agentWalletOf, ZERO_ADDRESS } from "../lib/escrow-mapping.ts";

/*
 * ERC-8004 identities and feedback (IdentityRegistry, ReputationRegistry) → chain.erc8004_agent and
 * chain.erc8004_feedback. On Base the registries predate the marketplace and are indexed from the
 * escrow's start block, so an identity registered earlier has no row: its changes are skipped, its
 * feedback is kept.
 */

const AGENT_WALLET_KEY = "agentWallet";

ponder.on("IdentityRegistry:Registered", async ({ event, context }) => {
  const owner = event.args.owner.toLowerCase() as Hex;
  await context.db
    .insert(erc8004Agent)
    .values({
      chainId: context.chain.id,
      agentId: event.args.agentId,
      owner,
      agentUri: event.args.agentURI,
      agentWallet: null,
      registeredTxHash: event.transaction.hash,
      registeredBlock: event.block.number,
      registeredAt: event.block.timestamp,
      updatedBlock: event.block.number,
    })
    .onConflictDoUpdate({ owner, agentUri: event.args.agentURI, updatedBlock: event.block.number });
});

ponder.on("IdentityRegistry:URIUpdated", async ({ event, context }) => {
  const key = { chainId: context.chain.id, agentId: event.args.agentId };
  if (!(await context.db.find(erc8004Agent, key))) return;
  await context.db.update(erc8004Agent, key).set({ agentUri: event.args.newURI, updatedBlock: event.block.number });
});

ponder.on("IdentityRegistry:MetadataSet", async ({ event, context }) => {
  if (event.args.metadataKey !== AGENT_WALLET_KEY) return;
  const key = { chainId: context.chain.id, agentId: event.args.agentId };
  if (!(await context.db.find(erc8004Agent, key))) return;
  await context.db
    .update(erc8004Agent, key)
    .set({ agentWallet: agentWalletOf(event.args.metadataValue), updatedBlock: event.block.number });
});

/** Transfers after the mint change the owner (the mint itself is followed by Registered). */
ponder.on("IdentityRegistry:Transfer", async ({ event, context }) => {
  if (event.args.from === ZERO_ADDRESS) return;
  const key = { chainId: context.chain.id, agentId: event.args.tokenId };
  if (!(await context.db.find(erc8004Agent, key))) return;
  await context.db
    .update(erc8004Agent, key)
    .set({ owner: event.args.to.toLowerCase() as Hex, updatedBlock: event.block.number });
});

ponder.on("ReputationRegistry:NewFeedback", async ({ event, context }) => {
  const { args } = event;
  await context.db.insert(erc8004Feedback).values({
    chainId: context.chain.id,
    agentId: args.agentId,
    client: args.clientAddress.toLowerCase() as Hex,
    feedbackIndex: args.feedbackIndex,
    value: args.value,
    valueDecimals: args.valueDecimals,
    tag1: args.tag1,
    tag2: args.tag2,
    endpoint: args.endpoint,
    feedbackUri: args.feedbackURI,
    feedbackHash: args.feedbackHash,
    revoked: false,
    txHash: event.transaction.hash,
    blockNumber: event.block.number,
    blockTimestamp: event.block.timestamp,
  });
});

ponder.on("ReputationRegistry:FeedbackRevoked", async ({ event, context }) => {
  const key = {
    chainId: context.chain.id,
    agentId: event.args.agentId,
    client: event.args.clientAddress.toLowerCase() as Hex,
    feedbackIndex: event.args.feedbackIndex,
  };
  if (!(await context.db.find(erc8004Feedback, key))) return;
  await context.db.update(erc8004Feedback, key).set({ revoked: true });
});
