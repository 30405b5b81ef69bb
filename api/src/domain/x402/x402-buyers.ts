import { sql } from "drizzle-orm";
import type { Address } from "viem";
import type { DbTransaction } from "../../db/client.ts";
import { agents } from "../../db/schema.ts";

/*
 * The buyer of record of an x402 payment: a transaction's buyer is an agent. The agent whose wallet
 * paid, if there is one (registered, hosted or external, keyed or not); else a keyless external
 * agent made for the wallet now, named after it, left out of the directory (`x402_payer`). It acts
 * by the receipt token of each payment; its wallet's holder may take it over like any external
 * agent (the key challenge: a key, and the directory lists it), or act for it by signing in with
 * the wallet (an owner's session owns the external agents whose wallet it is).
 */

type Agent = typeof agents.$inferSelect;

/** "x402 buyer 0x1234…abcd": who it is, at a glance. */
export function x402BuyerName(payer: Address): string {
  return `x402 buyer ${payer.slice(0, 6)}…${payer.slice(-4)}`;
}

/**
 * The agent of `payer`'s wallet, made (keyless) if there is none, in `tx`: with the payment's own
 * rows, so a settlement refused leaves no agent behind. Two payments of one new wallet at once make
 * one agent (the wallet's unique index decides; the second waits for the first and reads it).
 */
export async function agentOfPayer(tx: Pick<DbTransaction, "insert" | "select">, payer: Address): Promise<Agent> {
  await tx
    .insert(agents)
    .values({ name: x402BuyerName(payer), walletAddress: payer, hosted: false, x402Payer: true })
    .onConflictDoNothing();
  const [agent] = await tx.select().from(agents).where(sql`lower(${agents.walletAddress}) = ${payer.toLowerCase()}`);
  if (!agent) throw new Error(`no agent for ${payer} after its insert`);
  return agent;
}
