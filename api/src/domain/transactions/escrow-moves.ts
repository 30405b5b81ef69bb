import { randomBytes } from "node:crypto";
import { getAddress, type Hex, parseSignature } from "viem";
import { custodialAccount } from "../../chain/custodial-wallet.ts";
import { type ContractCall, type EscrowMove, jsonTypedData, type SignedMove } from "../../chain/escrow-actions.ts";
import type { Database } from "../../db/client.ts";
import { type agents, deliverables } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { disputeReasonHash } from "../disputes/dispute-reason.ts";
import { keepDisputeReason } from "../disputes/disputes.ts";
import type { ApiPaths } from "../shared/api-paths.ts";
import { badRequest, conflict, EscrowRefusedError, forbidden, TransactionRevertedError } from "../shared/errors.ts";
import { awaitIndexed, transactionWrite } from "../shared/read-your-writes.ts";
import { createSettlement } from "../shared/settlement.ts";
import { acceptTxHashOnce } from "./accepted-tx-hashes.ts";
import { deliverableHash } from "./deliverables.ts";
import { type IndexedEscrowTerms, termsOfEscrow } from "./escrow-terms.ts";
import { timeoutSettlement } from "./timeouts.ts";
import type { TransactionState } from "./transaction-state.ts";
import { autoReleaseAt, findTransaction, stateOfRow, type TransactionRow } from "./transactions.ts";

/*
 * The parties' moves on a funded escrow: deliver (seller), release (buyer; the seller too once the
 * dispute window has closed), refund (buyer before delivery, or the seller) and dispute (either). A
 * hosted party's custodial key signs the move (EIP-712) and the relayer submits it; an external
 * party gets the exact call (and the typed data of the gasless form) and completes with the
 * `tx_hash` it sent, or its signature for the relayer. A move the escrow lets anyone make (release
 * after the window) is sent by the service itself, as the keeper sends it; so are the release and
 * the dispute of the buyer of an escrow an x402 payment funded, which the escrow lets its operator
 * make. Every completed move is answered once the indexer has its block, so the next read shows it.
 */

type Agent = typeof agents.$inferSelect;
type Party = "buyer" | "seller";
export type MoveName = "deliver" | "release" | "refund" | "dispute";

interface MoveRule<Input> {
  /**
   * Who may make it, from which states; `onceWindowClosed`: only once the dispute window has
   * closed on the chain's clock (409 with `auto_release_at` before), when the escrow lets anyone
   * release, so the service sends the release itself (for a hosted or an external party alike).
   */
  allowed: { party: Party; states: TransactionState[]; onceWindowClosed?: true }[];
  /** What it commits to on chain. */
  move(input: Input): EscrowMove;
}

/** Who may make which move from which state, and what each commits to on chain. */
export const RULES: {
  deliver: MoveRule<{ deliverable: string; deliverableUrl?: string }>;
  release: MoveRule<unknown>;
  refund: MoveRule<unknown>;
  dispute: MoveRule<{ reason: string }>;
} = {
  deliver: {
    allowed: [{ party: "seller", states: ["FUNDED"] }],
    move: (input) => ({ action: "deliver", deliverableHash: deliverableHash(input.deliverable, input.deliverableUrl) }),
  },
  release: {
    allowed: [
      { party: "buyer", states: ["DELIVERED", "DISPUTED"] },
      // A quiet buyer cannot hold the seller's pay: the keeper releases it then too.
      { party: "seller", states: ["DELIVERED"], onceWindowClosed: true },
    ],
    move: () => ({ action: "release" }),
  },
  refund: {
    allowed: [
      { party: "buyer", states: ["FUNDED"] },
      { party: "seller", states: ["FUNDED", "DELIVERED", "DISPUTED"] },
    ],
    move: () => ({ action: "refund" }),
  },
  dispute: {
    allowed: [
      { party: "buyer", states: ["FUNDED", "DELIVERED"] },
      { party: "seller", states: ["FUNDED", "DELIVERED"] },
    ],
    move: (input) => ({ action: "dispute", reasonHash: disputeReasonHash(input.reason) }),
  },
};

/**
 * The moves the escrow's operator makes for the buyer of an escrow an x402 payment funded
 * (`isOperatorDelegated`): that buyer has no key the service holds and may send nothing itself.
 */
const DELEGATED_MOVES: ReadonlySet<MoveName> = new Set(["release", "dispute"]);

/** Whether the transaction's escrow was funded by an x402 payment (its ref is the payment's nonce). */
function isX402Funded(row: TransactionRow): boolean {
  return row.transaction.escrowRef !== null;
}

/** How the caller proves or authorises a move it makes itself (external parties only). */
export interface MoveProof {
  /** The transaction that made the move on chain. */
  txHash?: Hex;
  /** Gasless: its EIP-712 signature of the move's typed data, for the relayer to submit. */
  signed?: { signature: Hex; nonce: string; sigDeadline: string };
}

export interface MoveInput extends MoveProof {
  caller: Agent;
  transactionId: string;
}

/** What an external party sends (or signs) to make the move itself, and how it completes. */
export interface MoveInstructions {
  chain_id: number;
  contract_address: string;
  calls: ContractCall[];
  typed_data: unknown;
  complete_with: string;
}

/** Done on chain and indexed (`row` read after it), or the instructions for an external party. */
export type MoveResult =
  | { done: true; row: TransactionRow; state: TransactionState; txHash: string }
  | { done: false; state: TransactionState; instructions: MoveInstructions };

/** Stores what a move commits to off chain, once it is accepted (not on a refusal). */
type Keep = (tx: Pick<Database, "insert">) => Promise<void>;

export function escrowMoves(
  deps: Pick<Deps, "db" | "config" | "chain" | "escrow" | "relayer" | "indexed">,
  paths: ApiPaths,
) {
  const { db, config, chain, escrow } = deps;
  const settle = createSettlement(deps);
  const settleTimeout = timeoutSettlement(deps);

  /**
   * The transaction, its escrow terms and the caller's part in it; 403/404/409 as the rules say.
   * `proven`: the caller hands in the tx_hash of the move, which the indexer may already show as
   * made; its event is verified instead of the state.
   */
  async function load(id: string, callerId: string, action: MoveName, proven: boolean) {
    const row = await findTransaction(db, chain.chainId, id);
    const { transaction } = row;
    const party: Party | undefined =
      transaction.buyerAgentId === callerId ? "buyer" : transaction.sellerAgentId === callerId ? "seller" : undefined;
    const rule = RULES[action];
    const permission = party && rule.allowed.find((allowed) => allowed.party === party);
    if (!permission) {
      throw forbidden(`Only the ${rule.allowed.map((allowed) => allowed.party).join(" or ")} may ${action}`);
    }
    const state = stateOfRow(row);
    if (!row.escrow || (!proven && !permission.states.includes(state))) {
      throw conflict(`Cannot ${action} a ${state} transaction`, { state, transaction_id: id });
    }
    if (permission.onceWindowClosed && !proven) {
      const closesAt = autoReleaseAt(row.escrow);
      if (!closesAt || (await escrow.now()) < Date.parse(closesAt) / 1000) {
        throw conflict(
          `Cannot ${action} yet: the dispute window closes at ${closesAt}; the ${party} may ${action} from then on, and the keeper releases the payment then`,
          { state, transaction_id: id, auto_release_at: closesAt },
        );
      }
    }
    return {
      row,
      party,
      indexed: row.escrow,
      permission,
      terms: termsOfEscrow(row.escrow),
      escrowId: row.escrow.id as Hex,
    };
  }

  /**
   * The release once the dispute window has closed, which the escrow lets anyone send: the
   * service sends it with the keeper's own send. If the keeper (or the buyer) settled it first, the
   * answer is that settlement; anything else that ended the escrow is a 409 with its state.
   */
  async function releaseAfterWindow(id: string, escrowTerms: IndexedEscrowTerms & { id: string }): Promise<MoveResult> {
    const outcome = await settleTimeout({ ...escrowTerms, id, escrowId: escrowTerms.id }, "release", "seller-release", {
      join: true,
    });
    const row = await findTransaction(db, chain.chainId, id);
    const state = stateOfRow(row);
    const txHash = row.escrow?.settledTxHash;
    if (state === "RELEASED" && txHash) return { done: true, row, state, txHash };
    const reason = outcome.settled ? "it was settled otherwise" : (outcome.refused ?? "a settlement is under way");
    throw new EscrowRefusedError(`The escrow refused to release: ${reason}`, { state, transaction_id: id });
  }

  async function done(id: string, txHash: string): Promise<MoveResult> {
    const row = await findTransaction(db, chain.chainId, id);
    return { done: true, row, state: stateOfRow(row), txHash };
  }

  /**
   * Makes `action` for the caller: hosted → signed and relayed; external → instructions, its
   * signature relayed, or the proof `tx_hash` verified (each accepted once).
   */
  async function makeMove(input: MoveInput, action: MoveName, move: EscrowMove, keep?: Keep): Promise<MoveResult> {
    const { caller, transactionId: id } = input;
    if (input.txHash && input.signed) throw badRequest("Send tx_hash or signed, not both");
    const loaded = await load(id, caller.id, action, input.txHash !== undefined);
    const { row, permission, terms, escrowId } = loaded;
    if (permission.onceWindowClosed && !input.txHash) {
      if (input.signed) throw badRequest(`After the dispute window the service sends the ${action}: send no signature`);
      return releaseAfterWindow(id, loaded.indexed);
    }
    const relayed = {
      transactionId: id,
      record: keep && ((tx: Pick<Database, "insert">) => keep(tx)),
      refused: (reason: string) =>
        new EscrowRefusedError(`The escrow refused to ${action}: ${reason}`, {
          state: stateOfRow(row),
          transaction_id: id,
        }),
      reverted: (txHash: Hex) =>
        new TransactionRevertedError(
          `The ${action} transaction ${txHash} reverted`,
          { transaction_id: id },
          "move_reverted",
        ),
      indexed: transactionWrite("Done", id),
    };
    if (
      loaded.party === "buyer" &&
      DELEGATED_MOVES.has(action) &&
      isX402Funded(row) &&
      !input.txHash &&
      !input.signed
    ) {
      // An x402 payment's escrow is delegated: the operator (the relayer) moves for its keyless buyer.
      const call = escrow.moveCall(escrowId, terms, move);
      const sent = await settle({ to: call.to, data: call.data, purpose: action }, relayed);
      return done(id, sent.txHash);
    }

    if (input.txHash) {
      const receipt = await escrow.verifyMove(input.txHash, escrowId, move);
      await acceptTxHashOnce(db, {
        txHash: input.txHash,
        chainId: chain.chainId,
        purpose: action,
        transactionId: id,
        agentId: caller.id,
      });
      await keep?.(db);
      await awaitIndexed(deps.indexed, receipt.blockNumber, transactionWrite("Done", id));
      return done(id, input.txHash);
    }

    let signed: SignedMove;
    if (input.signed) {
      if (caller.hosted) throw badRequest("Hosted agents' moves are signed by the service; send no signature");
      try {
        parseSignature(input.signed.signature);
      } catch {
        throw badRequest("signed.signature is not a valid ECDSA signature (r, s, v)");
      }
      signed = {
        signer: getAddress(caller.walletAddress),
        nonce: BigInt(input.signed.nonce),
        sigDeadline: BigInt(input.signed.sigDeadline),
        signature: input.signed.signature,
      };
    } else if (!caller.hosted) {
      await keep?.(db);
      const sigDeadline = BigInt((await escrow.now()) + 3600);
      // Unordered nonces: a random one, so the signature is never refused as used.
      const nonce = BigInt(`0x${randomBytes(31).toString("hex")}`);
      return {
        done: false,
        state: stateOfRow(row),
        instructions: {
          chain_id: chain.chainId,
          contract_address: escrow.escrow,
          calls: [escrow.moveCall(escrowId, terms, move)],
          typed_data: jsonTypedData(escrow.moveTypedData(escrowId, move, nonce, sigDeadline)),
          complete_with: `POST ${paths.transactionMove(id, action)} again with the same body and { "tx_hash": "<your transaction>" }, or gasless with { "signed": { "signature", "nonce": "${nonce}", "sig_deadline": "${sigDeadline}" } }`,
        },
      };
    } else {
      signed = await escrow.signMove(custodialAccount(caller, config.masterKey), escrowId, move);
    }

    // The relayer submits the signed move (the service's or an external party's).
    const sent = await settle(escrow.relayedMove(escrowId, terms, move, signed), relayed);
    return done(id, sent.txHash);
  }

  return {
    /** The seller delivers: the content (and link) are kept once the move is accepted. */
    async deliver(
      input: MoveInput & { deliverable: string; deliverableUrl?: string },
    ): Promise<MoveResult & { deliverableHash: Hex }> {
      const hash = deliverableHash(input.deliverable, input.deliverableUrl);
      const result = await makeMove(input, "deliver", RULES.deliver.move(input), async (tx) => {
        await tx
          .insert(deliverables)
          .values({ transactionId: input.transactionId, hash, content: input.deliverable, url: input.deliverableUrl })
          .onConflictDoNothing();
      });
      return { ...result, deliverableHash: hash };
    },
    /** The buyer releases the payment to the seller; the seller may once the dispute window has closed. */
    release: (input: MoveInput) => makeMove(input, "release", RULES.release.move(input)),
    /** The buyer (before delivery) or the seller refunds the buyer. */
    refund: (input: MoveInput) => makeMove(input, "refund", RULES.refund.move(input)),
    /**
     * Either party opens a dispute for the arbiter; its reason is kept (the chain holds only its
     * hash). Two parties' disputes may cross before either is mined and the loser's words be the
     * last kept: once the winner's is indexed its reason is kept again, which now only it can be.
     */
    async dispute(input: MoveInput & { reason: string }): Promise<MoveResult> {
      const keep = keepDisputeReason(chain.chainId, {
        transactionId: input.transactionId,
        agentId: input.caller.id,
        reason: input.reason,
      });
      const result = await makeMove(input, "dispute", RULES.dispute.move(input), keep);
      if (result.done) await keep(db);
      return result;
    },
  };
}

export type EscrowMoves = ReturnType<typeof escrowMoves>;
