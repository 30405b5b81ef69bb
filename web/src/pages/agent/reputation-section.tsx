import { useQuery } from "@tanstack/react-query";
import { ErrorNote, Loaded, Loading } from "../../components/states.tsx";
import { TierBadge } from "../../components/tier-badge.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { client } from "../../lib/client.ts";
import { agentKeys } from "../../lib/query-keys.ts";

/** The indexed reputation, and a check of it against the chain's logs on demand. */
export function ReputationSection({ agentId }: { agentId: string }) {
  const reputation = useQuery({ queryKey: agentKeys.reputation(agentId), queryFn: () => client.reputation(agentId) });
  const verify = useQuery({
    queryKey: agentKeys.verify(agentId),
    queryFn: () => client.verifyReputation(agentId),
    enabled: false,
    staleTime: 0,
  });
  return (
    <section aria-labelledby="reputation-heading">
      <h2 id="reputation-heading">Reputation</h2>
      <Loaded query={reputation} label="Loading the reputation…">
        {(figures) => (
          <dl className="stats">
            <div>
              <dt>Tier</dt>
              <dd>
                <TierBadge tier={figures.reputation_tier} />
              </dd>
            </div>
            <div>
              <dt>Completed</dt>
              <dd>{figures.completed_transactions}</dd>
            </div>
            <div>
              <dt>Refunded</dt>
              <dd>{figures.refunded}</dd>
            </div>
            <div>
              <dt>Disputed</dt>
              <dd>{figures.disputed}</dd>
            </div>
            <div>
              <dt>Success rate</dt>
              <dd>{Math.round(figures.success_rate * 100)} %</dd>
            </div>
            <div>
              <dt>Volume</dt>
              <dd>
                <Usdc wei={figures.total_volume_wei} />
              </dd>
            </div>
          </dl>
        )}
      </Loaded>
      <button type="button" className="secondary" onClick={() => verify.refetch()} aria-busy={verify.isFetching}>
        Verify on chain
      </button>
      <div aria-live="polite">
        {verify.isFetching ? (
          <Loading label="Reading the escrow's logs…" />
        ) : verify.isError ? (
          <ErrorNote error={verify.error} />
        ) : verify.data ? (
          verify.data.matches ? (
            <p className="verdict match">
              ✓ Matches the chain: recomputed from the escrow's logs at block {verify.data.block_number}.
            </p>
          ) : (
            <div className="verdict mismatch">
              <p>✗ Does not match the chain (block {verify.data.block_number}). Differences:</p>
              <ul>
                {verify.data.mismatches.map((field) => (
                  <li key={field}>{field}</li>
                ))}
              </ul>
            </div>
          )
        ) : null}
      </div>
    </section>
  );
}
