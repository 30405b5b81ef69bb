import { sql } from "drizzle-orm";
import { custodialAccount } from "../../chain/custodial-wallet.ts";
import { agents } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { fundedBountiesAwaitingListing, listFundedBounty } from "../listings/bounties.ts";
import { bountyMatching } from "../listings/bounty-matching.ts";
import type { ApiPaths } from "../shared/api-paths.ts";

/*
 * What a crash or an absent client left between the chain and the database, put right:
 * relayed transactions left without a receipt are recorded or re-sent (the relayer's and hosted
 * wallets' own), and an external poster's bounty funded on chain but never confirmed is listed.
 * (A transaction's state is read from its indexed escrow, so a PENDING one whose funding landed is
 * FUNDED already.)
 */

/**
 * `paths`: where bounties are claimed and proposed for, named by the `bounty.matching`
 * notifications of the bounties listed here; without them (a keeper built without the routes'
 * paths) none are sent.
 */
export function reconciliation(
  deps: Pick<Deps, "db" | "config" | "chain" | "relayer" | "hostedSender" | "readCache" | "logger">,
  paths?: Pick<ApiPaths, "claimBounty" | "bountyProposals">,
) {
  const { db, config, chain, relayer, hostedSender } = deps;
  const matching = paths && bountyMatching(deps, paths);

  /**
   * Hosted wallets' own transactions (ERC-8004 registrations and feedback) that a crash or a failed
   * broadcast left without a receipt: sent again or recorded, without waiting for the agent's next
   * request. Answers how many were open.
   */
  async function resumeHostedWallets(): Promise<number> {
    let resumed = 0;
    for (const address of await hostedSender.openWallets()) {
      const [agent] = await db
        .select()
        .from(agents)
        .where(sql`lower(${agents.walletAddress}) = ${address.toLowerCase()}`);
      if (!agent?.hosted || !agent.encryptedPrivateKey) continue;
      resumed += await hostedSender.resume(custodialAccount(agent, config.masterKey));
    }
    return resumed;
  }

  return {
    /** Unfinished sends, the relayer's then the hosted wallets': how many were open. */
    async resumeSends(): Promise<number> {
      return (await relayer.resume()) + (await resumeHostedWallets());
    },

    /** Bounties whose funding the indexer shows but nobody confirmed: listed; answers their ids. */
    async listFundedBounties(): Promise<string[]> {
      const listed: string[] = [];
      for (const listingId of await fundedBountiesAwaitingListing(db, chain.chainId)) {
        if (await listFundedBounty(db, listingId)) listed.push(listingId);
      }
      if (listed.length > 0) deps.readCache?.invalidate();
      for (const listingId of listed) await matching?.bountyOpened(listingId);
      return listed;
    },

    /** Open bounties whose matching agents were never told (a crash after the post): told now. */
    async announceBounties(): Promise<string[]> {
      return matching ? matching.notifyDue() : [];
    },
  };
}

export type Reconciliation = ReturnType<typeof reconciliation>;
