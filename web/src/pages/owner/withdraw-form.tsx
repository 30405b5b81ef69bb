import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Hex } from "../../components/address.tsx";
import { InsufficientBalance } from "../../components/insufficient-balance.tsx";
import { ErrorNote } from "../../components/states.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { parseUsdc } from "../../lib/amounts.ts";
import { agentClient } from "../../lib/client.ts";
import { isStatus } from "../../lib/errors.ts";
import { ownerKeys } from "../../lib/query-keys.ts";

/** Withdraw USDC from a hosted agent's wallet to an address. */
export function WithdrawForm({ agentId }: { agentId: string }) {
  const queryClient = useQueryClient();
  const id = useId();
  const [destination, setDestination] = useState("");
  const [amount, setAmount] = useState("");
  const amountWei = parseUsdc(amount);
  const addressValid = /^0x[0-9a-fA-F]{40}$/.test(destination.trim());
  const withdraw = useMutation({
    mutationFn: () =>
      agentClient(agentId).withdrawUsdc({ destination_address: destination.trim(), amount_wei: amountWei ?? "0" }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ownerKeys.agents }),
  });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (addressValid && amountWei && amountWei !== "0") withdraw.mutate();
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
      <button type="submit" aria-busy={withdraw.isPending} disabled={withdraw.isPending}>
        Withdraw
      </button>
      {withdraw.isError &&
        (isStatus(withdraw.error, 402) ? (
          <InsufficientBalance error={withdraw.error} />
        ) : (
          <ErrorNote error={withdraw.error} />
        ))}
      {withdraw.data && (
        <p role="status">
          Withdrawal {withdraw.data.state.toLowerCase()}: tx <Hex value={withdraw.data.tx_hash} />
        </p>
      )}
    </form>
  );
}
