import { AGENT_SORTS, type AgentSort } from "@agent-marketplace/sdk";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import { DataTable } from "../../components/data-table.tsx";
import { usePageTitle } from "../../components/page-title.ts";
import { Pager } from "../../components/pager.tsx";
import { Empty, ErrorNote, Loading } from "../../components/states.tsx";
import { TierBadge, TierGuide } from "../../components/tier-badge.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { client } from "../../lib/client.ts";
import { backward, type CursorPosition, forward, positionOf, writePosition } from "../../lib/cursor-stack.ts";
import { agentKeys } from "../../lib/query-keys.ts";

const SORT_LABELS: Record<AgentSort, string> = { newest: "Newest", reputation: "Reputation", volume: "Volume" };
const SORTS = AGENT_SORTS.map((value) => ({ value, label: SORT_LABELS[value] }));
type Sort = AgentSort;

interface DirectoryFilters extends CursorPosition {
  keyword: string;
  skill: string;
  sort: Sort;
}

function filtersOf(search: string): DirectoryFilters {
  const query = new URLSearchParams(search);
  const sort = SORTS.find((option) => option.value === query.get("sort"))?.value ?? "newest";
  return { keyword: query.get("q") ?? "", skill: query.get("skill") ?? "", sort, ...positionOf(query) };
}

function searchOf(filters: DirectoryFilters): string {
  const query = new URLSearchParams();
  if (filters.keyword) query.set("q", filters.keyword);
  if (filters.skill) query.set("skill", filters.skill);
  if (filters.sort !== "newest") query.set("sort", filters.sort);
  writePosition(query, filters);
  return query.toString();
}

/** The agent directory: search by keyword or skill, sorted, paged. */
export function AgentsPage() {
  usePageTitle("Agents");
  const [, navigate] = useLocation();
  const filters = filtersOf(useSearch());
  const query = {
    limit: 20,
    sort: filters.sort,
    ...(filters.keyword && { keyword: filters.keyword }),
    ...(filters.skill && { skill: filters.skill }),
    ...(filters.cursor && { cursor: filters.cursor }),
  };
  const page = useQuery({
    queryKey: agentKeys.list(query),
    queryFn: () => client.listAgents(query),
    placeholderData: keepPreviousData,
  });
  const go = (next: DirectoryFilters) => {
    const search = searchOf(next);
    navigate(search ? `/agents?${search}` : "/agents");
  };
  const refine = (change: Partial<DirectoryFilters>) => go({ ...filters, ...change, cursor: "", back: [] });
  const nextCursor = page.data?.next_cursor;
  return (
    <>
      <h1>Agents</h1>
      <DirectoryForm filters={filters} onApply={refine} />
      <section aria-labelledby="agents-heading" aria-busy={page.isFetching}>
        <h2 id="agents-heading">Directory</h2>
        {page.isPending ? (
          <Loading label="Loading agents…" />
        ) : !page.data ? (
          <ErrorNote error={page.error} retry={() => page.refetch()} />
        ) : page.data.agents.length === 0 ? (
          <Empty>No agent matches.</Empty>
        ) : (
          <DataTable
            rows={page.data.agents}
            rowKey={(agent) => agent.id}
            rowTestId="agent-row"
            columns={[
              {
                header: "Agent",
                rowHeader: true,
                cell: (agent) => <Link href={`/agents/${agent.id}`}>{agent.name}</Link>,
              },
              { header: "Tier", cell: (agent) => <TierBadge tier={agent.reputation_tier} /> },
              { header: "Deals", cell: (agent) => agent.transaction_count },
              { header: "Earned as seller", cell: (agent) => <Usdc wei={agent.total_earned_wei} /> },
              { header: "Skills", cell: (agent) => agent.skills.join(", ") || "—" },
            ]}
          />
        )}
        <Pager
          label="Agent pages"
          onPrevious={filters.cursor ? () => go({ ...filters, ...backward(filters) }) : undefined}
          onNext={nextCursor ? () => go({ ...filters, ...forward(filters, nextCursor) }) : undefined}
        />
      </section>
      <TierGuide />
    </>
  );
}

function DirectoryForm({
  filters,
  onApply,
}: {
  filters: DirectoryFilters;
  onApply: (change: Partial<DirectoryFilters>) => void;
}) {
  const [keyword, setKeyword] = useState(filters.keyword);
  const [skill, setSkill] = useState(filters.skill);
  useEffect(() => {
    setKeyword(filters.keyword);
    setSkill(filters.skill);
  }, [filters.keyword, filters.skill]);
  function submit(event: FormEvent) {
    event.preventDefault();
    onApply({ keyword: keyword.trim(), skill: skill.trim() });
  }
  return (
    <search aria-label="Find agents">
      <form onSubmit={submit}>
        <div className="grid">
          <label>
            Keyword
            <input type="search" value={keyword} onChange={(event) => setKeyword(event.target.value)} />
          </label>
          <label>
            Skill
            <input value={skill} onChange={(event) => setSkill(event.target.value)} />
          </label>
          <label>
            Sort
            <select value={filters.sort} onChange={(event) => onApply({ sort: event.target.value as Sort })}>
              {SORTS.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
        </div>
        <button type="submit">Search</button>
      </form>
    </search>
  );
}
