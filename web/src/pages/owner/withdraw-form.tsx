import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Hex } from "../../components/address.tsx";
import { balanceLines, MoveRefusal, useOwnedAgent } from "../../components/money-review.tsx";
import { ReviewSheet } from "../../components/review-sheet.tsx";
import { Time } from "../../components/time.tsx";
import { useToast } from "../../components/toasts.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { formatUsdc, parseUsdc } from "../../lib/amounts.ts";
import { agentClient } from "../../lib/client.ts";
import { ownerKeys } from "../../lib/query-keys.ts";
import { useSession } from "../../lib/session.ts";

/** The id of an agent's list of withdrawals on the owner's page (a toast links to it). */
export const withdrawalsAnchor = (agentId: string) => `withdrawals-${agentId}`;

/**
 * Withdraw USDC from a hosted agent's wallet to an address: the amount, the destination and the
 * balance after are reviewed before anything is sent; then its recent withdrawals.
 */
export function WithdrawForm({ agentId }: { agentId: string }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const id = useId();
  const agent = useOwnedAgent(agentId);
  const session = useSession();
  // The signed-in owner's own wallet: where an owner most often takes its agent's earnings.
  const ownWallet = session.status === "signed-in" ? session.address : undefined;
  const [destination, setDestination] = useState("");
  const [amount, setAmount] = useState("");
  const [reviewing, setReviewing] = useState(false);
  const amountWei = parseUsdc(amount);
  const address = destination.trim();
  const addressValid = /^0x[0-9a-fA-F]{40}$/.test(address);
  const withdraw = useMutation({
    mutationFn: () => agentClient(agentId).withdrawUsdc({ destination_address: address, amount_wei: amountWei ?? "0" }),
    onSuccess: (sent) => {
      setReviewing(false);
      setAmount("");
      setDestination("");
      void queryClient.invalidateQueries({ queryKey: ownerKeys.agents });
      void queryClient.invalidateQueries({ queryKey: ownerKeys.withdrawals(agentId) });
      toast({
        message: `Withdrawal ${sent.state.toLowerCase()}: ${formatUsdc(sent.amount_wei)} USDC sent to ${sent.destination_address.slice(0, 8)}…${sent.destination_address.slice(-4)}.`,
        link: { href: `/owner#${withdrawalsAnchor(agentId)}`, label: "See the withdrawals" },
      });
    },
  });
  return (
    <>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (addressValid && amountWei && amountWei !== "0") {
            withdraw.reset();
            setReviewing(true);
          }
        }}
      >
        <label>
          Destination address
          <input
            value={destination}
            placeholder="0x…"
            required
            aria-invalid={destination !== "" && !addressValid ? true : undefined}
            onChange={(event) => setDestination(event.target.value)}
          />
        </label>
        {ownWallet && destination.toLowerCase() !== ownWallet.toLowerCase() && (
          <p>
            <button type="button" className="outline secondary inline-button" onClick={() => setDestination(ownWallet)}>
              To my wallet ({ownWallet.slice(0, 6)}…{ownWallet.slice(-4)})
            </button>
          </p>
        )}
        <label>
          Amount (USDC)
          <input
            inputMode="decimal"
            value={amount}
            required
            aria-invalid={amount !== "" && !amountWei ? true : undefined}
            aria-describedby={`${id}-amount`}
            onChange={(event) => setAmount(event.target.value)}
          />
          <small id={`${id}-amount`}>
            {amountWei ? (
              <>
                Sends exactly <Usdc wei={amountWei} />.
              </>
            ) : (
              "An amount of USDC, up to 6 decimals."
            )}
          </small>
        </label>
        <button type="submit">Withdraw</button>
      </form>
      {reviewing && amountWei && (
        <ReviewSheet
          title="Review the withdrawal"
          lines={[
            { label: "Amount sent", wei: amountWei, strong: true },
            { label: "To the address", text: <code className="destination">{address}</code> },
            ...balanceLines(agent, amountWei),
          ]}
          irreversible={
            <>
              USDC sent on chain cannot be called back. Check every character of the address: money sent to a wrong one
              is lost.
            </>
          }
          confirmLabel={`Confirm: send ${formatUsdc(amountWei)} USDC`}
          onConfirm={() => withdraw.mutate()}
          onCancel={() => setReviewing(false)}
          pending={withdraw.isPending}
        >
          <MoveRefusal error={withdraw.error} />
        </ReviewSheet>
      )}
      <RecentWithdrawals agentId={agentId} />
    </>
  );
}

function RecentWithdrawals({ agentId }: { agentId: string }) {
  const withdrawals = useQuery({
    queryKey: ownerKeys.withdrawals(agentId),
    queryFn: () => agentClient(agentId).listWithdrawals(),
  });
  const shown = withdrawals.data?.withdrawals.slice(0, 5) ?? [];
  if (shown.length === 0) return null;
  return (
    <section id={withdrawalsAnchor(agentId)} aria-label="Recent withdrawals">
      <h4>Recent withdrawals</h4>
      <ul className="withdrawals">
        {shown.map((item) => (
          <li key={item.withdrawal_id} data-testid="withdrawal">
            <Usdc wei={item.amount_wei} /> to <Hex value={item.destination_address} /> · {item.state.toLowerCase()} ·{" "}
            <Time iso={item.created_at} />
          </li>
        ))}
      </ul>
    </section>
  );
}
