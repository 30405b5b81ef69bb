import { and, eq, isNull } from "drizzle-orm";
import { getAddress, type Hex, type LocalAccount } from "viem";
import { custodialAccount } from "../../chain/custodial-wallet.ts";
import type { HostedSubmission } from "../../chain/hosted-sender.ts";
import { KeyedQueue } from "../../chain/keyed-queue.ts";
import { agents } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { badRequest, conflict, RegistryRevertedError } from "../shared/errors.ts";
import { awaitIndexed, type IndexedWrite } from "../shared/read-your-writes.ts";
import { createSettlement } from "../shared/settlement.ts";
import { erc8004Identities, type Identity } from "./erc8004-identity.ts";

/*
 * Registering an agent in the ERC-8004 identity registry with its registration file. The identity
 * must belong to the agent's own wallet, so the wallet sends `register(agentURI)` itself:
 * - hosted: the custodial key, its gas topped up by the relayer (chain/hosted-sender.ts). The
 *   transaction is recorded on the agent's row in the outbox's database transaction: a second
 *   request finds it and finishes it instead of registering twice.
 * - external: the agent gets the exact call, sends it, and hands in the tx_hash, which is checked
 *   against the registry's Registered event (owner and agentURI).
 * An agent that has an identity (recorded, or seen by the indexer) gets it back and nothing is sent.
 */

type Agent = typeof agents.$inferSelect;

export type RegistrationOutcome =
  | { kind: "registered"; created: boolean; identity: { agentId: bigint; txHash: string | null } }
  | { kind: "action_required"; call: { to: string; data: Hex } };

/** Thrown inside the outbox's database transaction when another request has already sent one. */
class RegistrationInFlight extends Error {}

export function erc8004Registration(
  deps: Pick<Deps, "db" | "config" | "chain" | "relayer" | "indexed" | "erc8004" | "hostedSender" | "logger">,
) {
  const { db, config, chain, erc8004, hostedSender } = deps;
  const settle = createSettlement(deps);
  const identities = erc8004Identities(db, chain.chainId);

  const readAgain = (agent: Agent): IndexedWrite => ({
    done: "Registered",
    record: { kind: "erc8004_identity", agentId: agent.id },
    details: { agent_id: agent.id },
  });

  /** The registration the agent has already: recorded, or seen by the indexer (then recorded). */
  async function existing(agent: Agent, agentUri: string): Promise<Identity | undefined> {
    const identity = await identities.identityOf(agent, agentUri);
    if (identity && agent.erc8004AgentId === null && identity.txHash) {
      await identities.record(agent.id, { agentId: identity.agentId, txHash: identity.txHash });
    }
    return identity;
  }

  /** Drops a hosted agent's claim on a registration that will never land, so the next one can be sent. */
  async function releaseClaim(agent: Agent, txHash: string): Promise<void> {
    await db
      .update(agents)
      .set({ erc8004TxHash: null })
      .where(and(eq(agents.id, agent.id), eq(agents.erc8004TxHash, txHash), isNull(agents.erc8004AgentId)));
  }

  /**
   * Finishes the registration a hosted agent's row names (sent by an earlier request, maybe
   * interrupted): its receipt gives the token. Undefined when it will never land (dropped,
   * reverted, or from another chain instance): its claim is released.
   */
  async function finishInFlight(agent: Agent, account: LocalAccount, agentUri: string): Promise<Identity | undefined> {
    const txHash = agent.erc8004TxHash as Hex;
    await hostedSender.resume(account);
    const status = await hostedSender.outboxStatus(txHash);
    if (status === undefined || status === "dropped") {
      await releaseClaim(agent, txHash);
      return undefined;
    }
    const receipt = await hostedSender.confirm(account, txHash);
    if (receipt.status !== "success") {
      await releaseClaim(agent, txHash);
      return undefined;
    }
    const agentId = erc8004.registrationIn(receipt, account.address, agentUri);
    await identities.record(agent.id, { agentId, txHash });
    await awaitIndexed(deps.indexed, receipt.blockNumber, readAgain(agent));
    return { agentId, txHash };
  }

  async function registerHosted(agent: Agent, agentUri: string, attempt = 0): Promise<RegistrationOutcome> {
    const account = custodialAccount(agent, config.masterKey);
    if (agent.erc8004TxHash) {
      const finished = await finishInFlight(agent, account, agentUri);
      if (finished) return { kind: "registered", created: false, identity: finished };
    }
    let sent: Awaited<ReturnType<typeof settle<HostedSubmission>>>;
    let agentId = 0n;
    try {
      sent = await settle<HostedSubmission>(
        { ...erc8004.registerCall(agentUri), purpose: "erc8004 register" },
        {
          via: {
            submit: (request) => hostedSender.submit(account, request),
            confirm: (txHash) => hostedSender.confirm(account, txHash),
          },
          record: async (tx, { txHash }) => {
            const claimed = await tx
              .update(agents)
              .set({ erc8004TxHash: txHash })
              .where(and(eq(agents.id, agent.id), isNull(agents.erc8004TxHash), isNull(agents.erc8004AgentId)))
              .returning({ id: agents.id });
            if (claimed.length === 0) throw new RegistrationInFlight();
          },
          refused: (reason) => conflict(`The identity registry refused the registration: ${reason}`),
          reverted: async (txHash) => {
            await releaseClaim(agent, txHash);
            return new RegistryRevertedError(
              `The registration transaction ${txHash} reverted`,
              "registration_reverted",
            );
          },
          mined: async (receipt) => {
            agentId = erc8004.registrationIn(receipt, account.address, agentUri);
            await identities.record(agent.id, { agentId, txHash: receipt.transactionHash });
          },
          indexed: readAgain(agent),
        },
      );
    } catch (error) {
      if (error instanceof RegistrationInFlight && attempt === 0) {
        // Another request sent one meanwhile: finish that one.
        const [current] = await db.select().from(agents).where(eq(agents.id, agent.id));
        if (current) return register(current, agentUri, undefined, attempt + 1);
      }
      throw error;
    }
    deps.logger.info(
      { agent_id: agent.id, tx_hash: sent.txHash, top_up_wei: sent.topUpWei.toString() },
      "erc8004 registration sent",
    );
    return { kind: "registered", created: true, identity: { agentId, txHash: sent.txHash } };
  }

  async function registerExternal(agent: Agent, agentUri: string, txHash?: Hex): Promise<RegistrationOutcome> {
    if (!txHash) return { kind: "action_required", call: erc8004.registerCall(agentUri) };
    const wallet = getAddress(agent.walletAddress);
    const proof = await erc8004.verifyRegistration(txHash, wallet, agentUri);
    const recorded = await identities.record(agent.id, { agentId: proof.agentId, txHash });
    await awaitIndexed(deps.indexed, proof.blockNumber, readAgain(agent));
    return { kind: "registered", created: recorded.txHash === txHash, identity: recorded };
  }

  /** One registration request per agent at a time in this process; the next reads what it recorded. */
  const turns = new KeyedQueue();

  /**
   * Registers `agent` with the registration file at `agentUri`, or answers the identity it has.
   * `txHash`: an external agent's proof of the `register` it sent.
   */
  async function register(agent: Agent, agentUri: string, txHash?: Hex, attempt = 0): Promise<RegistrationOutcome> {
    const identity = await existing(agent, agentUri);
    if (identity) return { kind: "registered", created: false, identity };
    if (agent.hosted) {
      if (txHash) throw badRequest("A hosted agent is registered by the service: send no tx_hash");
      return registerHosted(agent, agentUri, attempt);
    }
    return registerExternal(agent, agentUri, txHash);
  }

  return {
    register(agentId: string, agentUri: string, txHash?: Hex): Promise<RegistrationOutcome> {
      return turns.run(agentId, async () => {
        const [agent] = await db.select().from(agents).where(eq(agents.id, agentId));
        if (!agent) throw new Error(`agent ${agentId} vanished`);
        return register(agent, agentUri, txHash);
      });
    },
  };
}
