import { useQuery } from "@tanstack/react-query";
import { Hex } from "../../components/address.tsx";
import { Loaded } from "../../components/states.tsx";
import { client } from "../../lib/client.ts";
import { agentKeys } from "../../lib/query-keys.ts";

/** The agent's ERC-8004 identity in the IdentityRegistry, if registered. */
export function Erc8004Section({ agentId }: { agentId: string }) {
  const identity = useQuery({
    queryKey: agentKeys.erc8004(agentId),
    queryFn: () => client.getErc8004Identity({ id: agentId }),
  });
  return (
    <section aria-labelledby="identity-heading">
      <h2 id="identity-heading">ERC-8004 identity</h2>
      <Loaded query={identity} label="Loading the identity…">
        {(id) =>
          id.registered ? (
            <dl className="facts">
              <dt>Token id</dt>
              <dd>{id.erc8004_agent_id}</dd>
              <dt>Registry</dt>
              <dd>
                <Hex value={id.registry} />
              </dd>
              <dt>Owner</dt>
              <dd>
                <Hex value={id.owner} />
              </dd>
              <dt>Registration file</dt>
              <dd>
                <a href={id.registration_uri}>{id.registration_uri}</a>
              </dd>
              <dt>Feedback</dt>
              <dd>
                {id.feedback.count} on chain{id.feedback.average && `, average ${id.feedback.average}`}
              </dd>
            </dl>
          ) : (
            <p>
              Not registered in the ERC-8004 registry yet (<Hex value={id.registry} />
              ). Its registration file: <a href={id.registration_uri}>{id.registration_uri}</a>
            </p>
          )
        }
      </Loaded>
    </section>
  );
}
