import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { ErrorNote, Loaded } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { useToast } from "../../components/toasts.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { formatUsdcExact, parseUsdc } from "../../lib/amounts.ts";
import { client } from "../../lib/client.ts";
import { ownerKeys } from "../../lib/query-keys.ts";

type Field = "per_purchase_wei" | "per_day_wei" | "approval_above_wei";

const FIELDS: { name: Field; label: string; help: string }[] = [
  {
    name: "per_purchase_wei",
    label: "Most one move may spend (USDC)",
    help: "A buy, a bounty, an escrow or a withdrawal.",
  },
  { name: "per_day_wei", label: "Most it may spend in 24 hours (USDC)", help: "Counted over the last 24 hours." },
  {
    name: "approval_above_wei",
    label: "Ask me to approve moves above (USDC)",
    help: "The agent's moves above this wait for your approval at the top of this page; yours never do.",
  },
];

/** What a cap's field shows: its amount in USDC, or empty for no cap. */
const shown = (wei: string | null) => (wei === null ? "" : formatUsdcExact(wei));

/**
 * The spending caps of a hosted agent, set by its owner: what one move and a day may spend, and
 * the amount above which the agent's moves wait for the owner's approval. Empty: no cap. The
 * service signs the agent's moves, so no prompt gets past them; withdrawals to the owner's own
 * address are not capped.
 */
export function SpendingLimitsForm({ agentId }: { agentId: string }) {
  const id = useId();
  const queryClient = useQueryClient();
  const toast = useToast();
  const limits = useQuery({
    queryKey: ownerKeys.limits(agentId),
    queryFn: () => client.getAgentSpendingLimits({ id: agentId }),
  });
  const [values, setValues] = useState<Record<Field, string>>({
    per_purchase_wei: "",
    per_day_wei: "",
    approval_above_wei: "",
  });
  useEffect(() => {
    if (!limits.data) return;
    setValues({
      per_purchase_wei: shown(limits.data.per_purchase_wei),
      per_day_wei: shown(limits.data.per_day_wei),
      approval_above_wei: shown(limits.data.approval_above_wei),
    });
  }, [limits.data]);
  const parsed = Object.fromEntries(
    FIELDS.map(({ name }) => [name, values[name].trim() === "" ? null : (parseUsdc(values[name]) ?? "invalid")]),
  ) as Record<Field, string | null>;
  const valid = FIELDS.every(({ name }) => parsed[name] !== "invalid");
  const save = useMutation({
    mutationFn: () =>
      client.setAgentSpendingLimits({
        id: agentId,
        per_purchase_wei: parsed.per_purchase_wei,
        per_day_wei: parsed.per_day_wei,
        approval_above_wei: parsed.approval_above_wei,
      }),
    onSuccess: (saved) => {
      queryClient.setQueryData(ownerKeys.limits(agentId), saved);
      toast({ message: "Spending caps saved: the agent's next move is held to them." });
    },
  });
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Spending caps</h2>
      <Loaded query={limits} label="Loading the caps…">
        {(current) => (
          <>
            <p data-testid="spending-figures">
              Spent in the last 24 hours: <Usdc wei={current.spent_24h_wei} />
              {current.remaining_24h_wei !== null && (
                <>
                  {" "}
                  · left today: <Usdc wei={current.remaining_24h_wei} />
                </>
              )}
              {current.max_move_wei !== null && (
                <>
                  {" "}
                  · one move at most: <Usdc wei={current.max_move_wei} />
                </>
              )}
              {current.updated_at && (
                <>
                  {" "}
                  · set <Time iso={current.updated_at} />
                </>
              )}
            </p>
            <form
              aria-label="Spending caps"
              onSubmit={(event) => {
                event.preventDefault();
                if (valid) save.mutate();
              }}
            >
              {FIELDS.map(({ name, label, help }) => (
                <label key={name}>
                  {label}
                  <input
                    name={name}
                    inputMode="decimal"
                    placeholder="No cap"
                    value={values[name]}
                    aria-invalid={parsed[name] === "invalid" ? true : undefined}
                    aria-describedby={`${id}-${name}`}
                    onChange={(event) => setValues((before) => ({ ...before, [name]: event.target.value }))}
                  />
                  <small id={`${id}-${name}`}>
                    {parsed[name] === "invalid" ? "An amount of USDC, up to 6 decimals, or empty for no cap." : help}
                  </small>
                </label>
              ))}
              <button type="submit" disabled={!valid || save.isPending} aria-busy={save.isPending}>
                Save the caps
              </button>
              {save.isError && <ErrorNote error={save.error} />}
            </form>
          </>
        )}
      </Loaded>
    </section>
  );
}
