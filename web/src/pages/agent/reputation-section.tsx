import { useQuery } from "@tanstack/react-query";
import { ReputationFigures } from "../../components/reputation-figures.tsx";
import { ErrorNote, Loaded, Loading } from "../../components/states.tsx";
import { client } from "../../lib/client.ts";
import { agentKeys } from "../../lib/query-keys.ts";

/** The indexed reputation, and a check of it against the chain's logs on demand. */
export function ReputationSection({ agentId }: { agentId: string }) {
  const reputation = useQuery({
    queryKey: agentKeys.reputation(agentId),
    queryFn: () => client.getReputation({ id: agentId }),
  });
  const verify = useQuery({
    queryKey: agentKeys.verify(agentId),
    queryFn: () => client.verifyReputation({ id: agentId }),
    enabled: false,
    staleTime: 0,
  });
  return (
    <section aria-labelledby="reputation-heading">
      <h2 id="reputation-heading">Reputation</h2>
      <Loaded query={reputation} label="Loading the reputation…">
        {(figures) => <ReputationFigures figures={figures} />}
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
