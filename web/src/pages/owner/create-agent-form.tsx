import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { NewKey } from "../../components/new-key.tsx";
import { ErrorNote } from "../../components/states.tsx";
import { client } from "../../lib/client.ts";
import { ownerKeys } from "../../lib/query-keys.ts";

/** Registers a hosted agent in the owner's name; its key is shown once. */
export function CreateAgentForm() {
  const queryClient = useQueryClient();
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
      {create.data && (
        <div role="status">
          <p>
            Created <Link href={`/owner/agents/${create.data.agent.id}`}>{create.data.agent.name}</Link>.
          </p>
          <NewKey apiKey={create.data.api_key} warning={create.data.warning} />
        </div>
      )}
    </section>
  );
}
