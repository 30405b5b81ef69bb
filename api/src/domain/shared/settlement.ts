import type { Hex, TransactionReceipt } from "viem";
import { type RelayCall, type RelayRequest, RelayRevertedError } from "../../chain/relayer.ts";
import type { IndexedBlocks } from "../../db/indexed-blocks.ts";
import { awaitIndexed, type IndexedWrite } from "./read-your-writes.ts";

/** Who signs and sends: the platform's relayer, the arbiter's, or a hosted agent's own wallet. */
export interface Sender<Sent extends { txHash: Hex } = { txHash: Hex }> {
  submit(request: RelayRequest): Promise<Sent>;
  confirm(txHash: Hex): Promise<TransactionReceipt>;
}

export interface SettleOptions<Sent extends { txHash: Hex }> {
  /** Who sends it; the platform's relayer by default. */
  via?: Sender<Sent>;
  /** The marketplace transaction it acts on (the outbox row names it). */
  transactionId?: string;
  /** Runs in the outbox's database transaction: the caller's rows commit with the record of the send. */
  record?: RelayRequest["record"];
  /** The error for a call the chain would refuse (its simulation reverted): nothing was sent. */
  refused(reason: string): Error | Promise<Error>;
  /** The error for a mined transaction that reverted; without it the receipt is answered as it is. */
  reverted?(txHash: Hex): Error | Promise<Error>;
  /** Runs once the transaction is mined and succeeded, before the wait for the indexer. */
  mined?(receipt: TransactionReceipt): Promise<void>;
  /** Answer only once the indexer has the block (else 503 `indexer_behind`, naming this write). */
  indexed?: IndexedWrite;
}

/**
 * The one path of every call the service sends on chain: submit (a refused simulation sends
 * nothing), wait until mined, then until indexed, with a typed refusal at each step. A crash
 * between the steps is healed by the sender's outbox (`resume`), never by the caller.
 */
export function createSettlement(deps: { relayer: Sender; indexed: IndexedBlocks }) {
  return async function settle<Sent extends { txHash: Hex } = { txHash: Hex }>(
    call: RelayCall,
    options: SettleOptions<Sent>,
  ): Promise<Sent & { receipt: TransactionReceipt }> {
    const sender = (options.via ?? deps.relayer) as Sender<Sent>;
    let sent: Sent;
    try {
      sent = await sender.submit({ ...call, transactionId: options.transactionId, record: options.record });
    } catch (error) {
      if (error instanceof RelayRevertedError) throw await options.refused(error.message);
      throw error;
    }
    const receipt = await sender.confirm(sent.txHash);
    if (receipt.status === "success") await options.mined?.(receipt);
    else if (options.reverted) throw await options.reverted(sent.txHash);
    if (options.indexed) await awaitIndexed(deps.indexed, receipt.blockNumber, options.indexed);
    return { ...sent, receipt };
  };
}

export type Settle = ReturnType<typeof createSettlement>;
