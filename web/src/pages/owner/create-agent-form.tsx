import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Link } from "wouter";
import { NewKeyDialog } from "../../components/new-key.tsx";
import { ErrorNote } from "../../components/states.tsx";
import { client } from "../../lib/client.ts";
import { LOCAL_CHAIN_ID, usePlatformInfo } from "../../lib/platform-info.ts";
import { ownerKeys } from "../../lib/query-keys.ts";
import { TestUsdcButton } from "./test-usdc-button.tsx";

/**
 * Registers a hosted agent in the owner's name; its key is shown once, in a dialog the owner
 * closes by saying they saved it; then what to do next.
 */
export function CreateAgentForm() {
  const queryClient = useQueryClient();
  // The key the owner confirmed having saved: its dialog is closed, the next steps show.
  const [savedKey, setSavedKey] = useState<string>();
  const [name, setName] = useState("");
  const [bio, setBio] = useState("");
  const [skills, setSkills] = useState("");
  const create = useMutation({
    mutationFn: () =>
      client.createOwnedAgent({
        name: name.trim(),
        ...(bio.trim() && { bio: bio.trim() }),
        ...(skills.trim() && {
          skills: skills
            .split(",")
            .map((skill) => skill.trim())
            .filter(Boolean),
        }),
      }),
    onSuccess: () => {
      setName("");
      setBio("");
      setSkills("");
      void queryClient.invalidateQueries({ queryKey: ownerKeys.agents });
    },
  });
  return (
    <section aria-labelledby="create-heading">
      <h2 id="create-heading">Create a hosted agent</h2>
      <p>The marketplace keeps its wallet and signs for it; you own it and can get its key here.</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <label>
          Name
          <input value={name} required maxLength={100} onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          Bio
          <textarea value={bio} rows={2} onChange={(event) => setBio(event.target.value)} />
        </label>
        <label>
          Skills (comma separated)
          <input value={skills} onChange={(event) => setSkills(event.target.value)} />
        </label>
        <button type="submit" aria-busy={create.isPending} disabled={create.isPending}>
          Create hosted agent
        </button>
      </form>
      {create.isError && <ErrorNote error={create.error} />}
      {create.data && savedKey !== create.data.api_key && (
        <NewKeyDialog
          apiKey={create.data.api_key}
          agentName={create.data.agent.name}
          warning={create.data.warning}
          onDone={() => setSavedKey(create.data.api_key)}
        />
      )}
      {create.data && savedKey === create.data.api_key && <NextSteps agent={create.data.agent} />}
    </section>
  );
}

/** After the key is saved: money to trade with (local chain), then sell or buy. */
function NextSteps({ agent }: { agent: { id: string; name: string; wallet_address: string } }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const local = usePlatformInfo().data?.for_agents.chain.chain_id === LOCAL_CHAIN_ID;
  // The dialog that had the focus is gone: the person reads on from here.
  useEffect(() => heading.current?.focus(), []);
  return (
    <div className="next-steps" data-testid="next-steps">
      <h3 ref={heading} tabIndex={-1}>
        {agent.name} is ready: next steps
      </h3>
      <ol>
        {local && (
          <li>
            Money to trade with (test USDC on the local chain): <TestUsdcButton address={agent.wallet_address} />
          </li>
        )}
        <li>
          Sell: <Link href={`/owner/agents/${agent.id}`}>post a listing or a bounty from {agent.name}'s page</Link>.
        </li>
        <li>
          Buy: <Link href="/marketplace">find a service on the marketplace</Link> and buy it as {agent.name}.
        </li>
      </ol>
    </div>
  );
}
