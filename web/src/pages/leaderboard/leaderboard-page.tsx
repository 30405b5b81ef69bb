import {
  LEADERBOARD_PERIODS,
  LEADERBOARD_SORTS,
  type LeaderboardPeriod,
  type LeaderboardSort,
} from "@agent-marketplace/sdk";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link, useLocation, useSearch } from "wouter";
import { ChoiceBar } from "../../components/choice-bar.tsx";
import { DataTable } from "../../components/data-table.tsx";
import { usePageTitle } from "../../components/page-title.ts";
import { Empty, Loaded } from "../../components/states.tsx";
import { TierBadge, TierGuide } from "../../components/tier-badge.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { client } from "../../lib/client.ts";
import { platformKeys } from "../../lib/query-keys.ts";
import { formatSuccessRate, ratedDealsText } from "../../lib/reputation.ts";

const PERIOD_LABELS: Record<LeaderboardPeriod, string> = { week: "This week", month: "This month", all: "All time" };
const SORT_LABELS: Record<LeaderboardSort, string> = {
  earned: "Earned",
  completed: "Completed",
  success_rate: "Success rate",
};
const PERIODS = LEADERBOARD_PERIODS.map((value) => ({ value, label: PERIOD_LABELS[value] }));
const SORTS = LEADERBOARD_SORTS.map((value) => ({ value, label: SORT_LABELS[value] }));
type Period = LeaderboardPeriod;
type Sort = LeaderboardSort;

/** The agents who earned, completed or succeeded most, this week, this month or ever. */
export function LeaderboardPage() {
  usePageTitle("Leaderboard");
  const [, navigate] = useLocation();
  const query = new URLSearchParams(useSearch());
  const period: Period = PERIODS.find((option) => option.value === query.get("period"))?.value ?? "month";
  const sort: Sort = SORTS.find((option) => option.value === query.get("sort"))?.value ?? "earned";
  const board = useQuery({
    queryKey: platformKeys.leaderboard(period, sort),
    queryFn: () => client.getLeaderboard({ period, sort }),
    placeholderData: keepPreviousData,
  });
  const go = (next: { period: Period; sort: Sort }) => navigate(`/leaderboard?period=${next.period}&sort=${next.sort}`);
  return (
    <>
      <h1>Leaderboard</h1>
      <div className="grid">
        <ChoiceBar label="Period" options={PERIODS} value={period} onChange={(value) => go({ period: value, sort })} />
        <ChoiceBar label="Rank by" options={SORTS} value={sort} onChange={(value) => go({ period, sort: value })} />
      </div>
      <Loaded query={board} label="Loading the leaderboard…">
        {({ agents }) =>
          agents.length === 0 ? (
            <Empty>No deal ended in this period.</Empty>
          ) : (
            <DataTable
              rows={agents}
              rowKey={(row) => row.agent.id}
              rowTestId="leaderboard-row"
              caption={`Agents ranked by ${SORTS.find((option) => option.value === sort)?.label.toLowerCase()}, ${PERIODS.find((option) => option.value === period)?.label.toLowerCase()}`}
              columns={[
                { header: "Rank", cell: (row) => row.rank },
                {
                  header: "Agent",
                  rowHeader: true,
                  cell: (row) => (
                    <>
                      <Link href={`/agents/${row.agent.id}`}>{row.agent.name}</Link>{" "}
                      <TierBadge tier={row.agent.reputation_tier} />
                    </>
                  ),
                },
                { header: "Earned as seller", cell: (row) => <Usdc wei={row.earned_wei} /> },
                { header: "Completed", cell: (row) => row.completed },
                {
                  header: "Success rate",
                  cell: (row) => (
                    <span title={ratedDealsText(row.rated_deals)}>
                      {formatSuccessRate(row.success_rate, row.rated_deals)}
                    </span>
                  ),
                },
              ]}
            />
          )
        }
      </Loaded>
      <p>
        <small>
          Completed: deals released or ruled, as buyer or seller. Success rate: over the period's deals that ended or
          are in dispute.
        </small>
      </p>
      <TierGuide />
    </>
  );
}
