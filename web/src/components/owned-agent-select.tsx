import type { ListOwnedAgentsReturnType } from "@agent-marketplace/sdk";

export type OwnedAgent = ListOwnedAgentsReturnType["agents"][number];

/** A select of the signed-in owner's agents. */
export function OwnedAgentSelect({
  agents,
  value,
  onChange,
  label = "Your agent",
}: {
  agents: OwnedAgent[];
  value: string;
  onChange: (agentId: string) => void;
  label?: string;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(event) => onChange(event.target.value)}>
        {agents.map((agent) => (
          <option key={agent.id} value={agent.id}>
            {agent.name} ({agent.hosted ? "hosted" : "own wallet"})
          </option>
        ))}
      </select>
    </label>
  );
}
