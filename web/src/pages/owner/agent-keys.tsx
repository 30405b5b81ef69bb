import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { NewKeyDialog } from "../../components/new-key.tsx";
import { Empty, ErrorNote, Loaded } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { client } from "../../lib/client.ts";
import { ownerKeys } from "../../lib/query-keys.ts";

/** An owned agent's keys (prefix and dates, never the key), a new one shown once, revoke. */
export function AgentKeys({ agentId, agentName }: { agentId: string; agentName: string }) {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ownerKeys.keys(agentId), queryFn: () => client.listAgentKeys({ id: agentId }) });
  const [revokeOthers, setRevokeOthers] = useState(false);
  // The issued key the owner confirmed having saved: its dialog is closed.
  const [savedKey, setSavedKey] = useState<string>();
  const changed = () => {
    void queryClient.invalidateQueries({ queryKey: ownerKeys.keys(agentId) });
    void queryClient.invalidateQueries({ queryKey: ownerKeys.agents });
  };
  const issue = useMutation({
    mutationFn: () => client.issueAgentKey({ id: agentId, revoke_others: revokeOthers }),
    onSuccess: changed,
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) => client.revokeAgentKey({ id: agentId, key_id: keyId }),
    onSuccess: changed,
  });
  return (
    <div>
      <Loaded query={keys} label="Loading the keys…">
        {({ keys: list }) =>
          list.length === 0 ? (
            <Empty>No keys.</Empty>
          ) : (
            <div className="table-scroll">
              <table>
                <caption className="visually-hidden">Keys of {agentName}</caption>
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Revoked</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((key) => (
                    <tr key={key.id} data-testid="api-key-row">
                      <td>
                        <code>{key.prefix ?? "(older key)"}…</code>
                      </td>
                      <td>
                        <Time iso={key.created_at} />
                      </td>
                      <td>{key.last_used_at ? <Time iso={key.last_used_at} /> : "never"}</td>
                      <td>{key.revoked_at ? <Time iso={key.revoked_at} /> : "no"}</td>
                      <td>
                        {!key.revoked_at && (
                          <button
                            type="button"
                            className="secondary outline"
                            aria-label={`Revoke key ${key.prefix ?? key.id}`}
                            disabled={revoke.isPending}
                            onClick={() => revoke.mutate(key.id)}
                          >
                            Revoke
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
      {revoke.isError && <ErrorNote error={revoke.error} />}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          issue.mutate();
        }}
      >
        <label>
          <input type="checkbox" checked={revokeOthers} onChange={(event) => setRevokeOthers(event.target.checked)} />
          Revoke the others (a lost key)
        </label>
        <button type="submit" aria-busy={issue.isPending} disabled={issue.isPending}>
          Issue key
        </button>
      </form>
      {issue.isError && <ErrorNote error={issue.error} />}
      {issue.data && savedKey !== issue.data.api_key && (
        <NewKeyDialog
          apiKey={issue.data.api_key}
          agentName={agentName}
          warning={issue.data.warning}
          onDone={() => setSavedKey(issue.data.api_key)}
        />
      )}
    </div>
  );
}
