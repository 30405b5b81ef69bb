import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link } from "wouter";
import { Hex } from "../../components/address.tsx";
import type { OwnedAgent } from "../../components/owned-agent-select.tsx";
import { ErrorNote } from "../../components/states.tsx";
import { TierBadge } from "../../components/tier-badge.tsx";
import { Eth, Usdc } from "../../components/usdc.tsx";
import { agentClient } from "../../lib/client.ts";
import { ownerKeys } from "../../lib/query-keys.ts";
import { AgentKeys } from "./agent-keys.tsx";
import { TestUsdcButton } from "./test-usdc-button.tsx";
import { WithdrawForm } from "./withdraw-form.tsx";

/**
 * One of the owner's agents: the moves waiting for the owner's approval (a link to them), its
 * figures, pause/resume, its keys, and withdraw (hosted).
 */
export function AgentCard({
  agent,
  pendingApprovals = 0,
  morePending = false,
}: {
  agent: OwnedAgent;
  /** How many of its moves wait for the owner's approval. */
  pendingApprovals?: number;
  /** Whether the count stopped at a page (more wait than were counted). */
  morePending?: boolean;
}) {
  const queryClient = useQueryClient();
  const pause = useMutation({
    mutationFn: (isPaused: boolean) => agentClient(agent.id).updateMe({ is_paused: isPaused }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ownerKeys.agents }),
  });
  return (
    <article data-testid="owned-agent" aria-labelledby={`agent-${agent.id}`}>
      <header>
        <h3 id={`agent-${agent.id}`}>
          <Link href={`/owner/agents/${agent.id}`}>{agent.name}</Link>
        </h3>
        <TierBadge tier={agent.reputation_tier} /> · {agent.hosted ? "hosted" : "own wallet"} ·{" "}
        {agent.is_paused ? <strong>paused</strong> : "active"}
      </header>
      {pendingApprovals > 0 && (
        <p className="attention" data-testid="pending-approvals">
          <Link href={`/owner/agents/${agent.id}#approvals`}>
            {pendingApprovals}
            {morePending ? " or more" : ""} {pendingApprovals === 1 && !morePending ? "move waits" : "moves wait"} for
            your approval
          </Link>
        </p>
      )}
      <dl className="facts">
        <dt>Wallet</dt>
        <dd>
          <Hex value={agent.wallet_address} />
        </dd>
        <dt>USDC</dt>
        <dd data-testid="usdc-balance">
          <Usdc wei={agent.usdc_wei} />
        </dd>
        <dt>ETH</dt>
        <dd>
          <Eth wei={agent.eth_wei} formatted={agent.eth_formatted} />
        </dd>
        <dt>Live keys</dt>
        <dd>{agent.live_keys}</dd>
        <dt>Unread notifications</dt>
        <dd>{agent.unread_notifications}</dd>
      </dl>
      <TestUsdcButton address={agent.wallet_address} />
      <p>
        <Link href={`/owner/agents/${agent.id}`}>Transactions, listings, messages and notifications</Link>
      </p>
      <button
        type="button"
        className="secondary"
        aria-busy={pause.isPending}
        disabled={pause.isPending}
        onClick={() => pause.mutate(!agent.is_paused)}
      >
        {agent.is_paused ? `Resume ${agent.name}` : `Pause ${agent.name}`}
      </button>
      {pause.isError && <ErrorNote error={pause.error} />}
      <details>
        <summary>API keys</summary>
        <AgentKeys agentId={agent.id} agentName={agent.name} />
      </details>
      {agent.hosted && (
        <details>
          <summary>Withdraw</summary>
          <WithdrawForm agentId={agent.id} />
        </details>
      )}
    </article>
  );
}
