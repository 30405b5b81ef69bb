import { sql } from "drizzle-orm";
import { type Address, getAddress, type Hex } from "viem";
import { CREDIT_WITHDRAWAL_PURPOSE } from "../../chain/escrow-actions.ts";
import type { Database } from "../../db/client.ts";
import type { Deps } from "../../deps.ts";
import { EscrowRefusedError } from "../shared/errors.ts";
import { createSettlement } from "../shared/settlement.ts";

/*
 * Credited payouts, paid out. The escrow credits a payout the token refuses (a blacklisted payee,
 * or any transfer while the token is paused) instead of reverting; `withdrawCredit(account)` pays
 * it later, to that account only, and anyone may send it. The keeper does, each round, for every
 * account the indexer shows owed something (chain.credit): the relayer simulates the call first,
 * so while the token still refuses nothing is signed and no gas is spent; the account waits for a
 * later round.
 */

/** An account the escrow owes credited payouts, as indexed. */
export interface OwedCredit {
  account: Address;
  owedWei: bigint;
  /** The block of the indexer's last change to the row (a credit or a withdrawal). */
  updatedBlock: bigint;
}

/** What a round of pay-outs came to. */
export interface CreditPayoutRound {
  /** Accounts paid their credit this round. */
  paid: Address[];
  /** Accounts the token still refuses to pay (paused, or the account blacklisted): left for a later round. */
  refused: Address[];
}

/** The withdrawal of a credit was signed first by another process (under way or mined): ours was not sent. */
class WithdrawalSent extends Error {
  readonly txHash: Hex;
  constructor(txHash: Hex) {
    super(`This credit's withdrawal was sent already: ${txHash}`);
    this.txHash = txHash;
  }
}

export function creditPayouts(deps: Pick<Deps, "db" | "chain" | "escrow" | "relayer" | "indexed" | "logger">) {
  const { db, chain, escrow, relayer, logger } = deps;
  const send = createSettlement(deps);

  /**
   * Accounts owed a credit on this chain, at most `limit`, in a random order: accounts the token
   * refuses for good (blacklisted) cannot take every round's places from the others.
   */
  async function owedCredits(limit = 50): Promise<OwedCredit[]> {
    const { rows } = await db.execute<{ account: string; owed: string; updated_block: string }>(sql`
      SELECT account, owed::text AS owed, updated_block::text AS updated_block
      FROM chain.credit
      WHERE chain_id = ${chain.chainId} AND owed > 0
      ORDER BY random()
      LIMIT ${limit}`);
    return rows.map((row) => ({
      account: getAddress(row.account),
      owedWei: BigInt(row.owed),
      updatedBlock: BigInt(row.updated_block),
    }));
  }

  /**
   * The hash of a withdrawal of this credit that the relayer's outbox holds, other than `except`:
   * one under way, or one mined after the block the indexed row reflects (the indexer has not shown
   * it yet). A mined withdrawal always changes the row (its CreditWithdrawn), so one mined at or
   * before `updatedBlock` is already counted in `owed`: what is owed since is a new credit.
   */
  async function withdrawalSent(
    on: Pick<Database, "execute">,
    call: { to: Address; data: Hex },
    credit: OwedCredit,
    except?: Hex,
  ): Promise<Hex | undefined> {
    const { rows } = await on.execute<{ tx_hash: string }>(sql`
      SELECT tx_hash FROM app.relayed_transactions
      WHERE chain_instance = ${relayer.chainInstance} AND purpose = ${CREDIT_WITHDRAWAL_PURPOSE}
        AND to_address = ${call.to} AND data = ${call.data}
        AND (status = 'signed' OR (status = 'mined' AND block_number > ${credit.updatedBlock.toString()}))
        ${except ? sql`AND tx_hash <> ${except}` : sql``}
      LIMIT 1`);
    return rows[0]?.tx_hash as Hex | undefined;
  }

  /**
   * Sends `withdrawCredit(account)` from the relayer unless a withdrawal of this credit was sent
   * already. Two keepers at once never both send: the outbox's record of ours asks again, under
   * the relayer's lock, and rolls ours back unsent if another came first. A crash after the send
   * leaves a `signed` row that the relayer's resume finishes, and that this check counts meanwhile.
   * Answers whether the account was paid now, or "refused" when the token still refuses.
   */
  async function payOut(credit: OwedCredit): Promise<"paid" | "refused" | "skipped"> {
    const call = escrow.relayedCreditWithdrawal(credit.account);
    if (await withdrawalSent(db, call, credit)) return "skipped";
    try {
      const { receipt } = await send(call, {
        record: async (tx, ours) => {
          const first = await withdrawalSent(tx, call, credit, ours.txHash);
          if (first) throw new WithdrawalSent(first);
        },
        refused: (reason) => new EscrowRefusedError(reason),
      });
      // Mined but reverted: someone else's withdrawal of it came first, after our simulation.
      return receipt.status === "success" ? "paid" : "skipped";
    } catch (error) {
      if (error instanceof WithdrawalSent) return "skipped";
      if (error instanceof EscrowRefusedError) return "refused";
      throw error;
    }
  }

  return {
    owedCredits,

    /**
     * Every owed credit the token lets the escrow pay now, paid, one send each. A credit the token
     * still refuses is only logged at debug level: it is expected to wait (a pause, a blacklisting)
     * and the metrics show what is owed.
     */
    async payOutCredits(): Promise<CreditPayoutRound> {
      const round: CreditPayoutRound = { paid: [], refused: [] };
      for (const credit of await owedCredits()) {
        const outcome = await payOut(credit);
        if (outcome === "paid") round.paid.push(credit.account);
        else if (outcome === "refused") {
          round.refused.push(credit.account);
          logger.debug(
            { account: credit.account, owed_wei: credit.owedWei.toString() },
            "keeper: the token refuses this credit's payout for now",
          );
        }
      }
      return round;
    },
  };
}

export type CreditPayouts = ReturnType<typeof creditPayouts>;
