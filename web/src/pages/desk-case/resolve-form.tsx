import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorNote } from "../../components/states.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { client } from "../../lib/client.ts";
import { BPS, formatBps, payoutPreview } from "../../lib/payout.ts";
import { deskKeys } from "../../lib/query-keys.ts";

/** The ruling: a split of the escrow (seller's share in basis points) and a note both sides read. */
export function ResolveForm({
  transactionId,
  amountWei,
  feeBps,
}: {
  transactionId: string;
  amountWei: string;
  /** The escrow's platform fee on the seller's share. */
  feeBps: number;
}) {
  const queryClient = useQueryClient();
  const [sellerBps, setSellerBps] = useState(5_000);
  const [note, setNote] = useState("");
  const preview = payoutPreview(amountWei, sellerBps, feeBps);
  const resolve = useMutation({
    mutationFn: () => client.resolveDispute({ id: transactionId, seller_bps: sellerBps, note }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: deskKeys.all }),
  });
  return (
    <section aria-labelledby="ruling-form-heading">
      <h2 id="ruling-form-heading">Resolve</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          resolve.mutate();
        }}
      >
        <label>
          Seller's share
          <input
            type="range"
            min={0}
            max={BPS}
            step={100}
            value={sellerBps}
            aria-valuetext={formatBps(sellerBps)}
            onChange={(event) => setSellerBps(Number(event.target.value))}
          />
        </label>
        <label>
          Basis points (0 to 10000)
          <input
            type="number"
            min={0}
            max={BPS}
            value={sellerBps}
            onChange={(event) => setSellerBps(Math.min(BPS, Math.max(0, Math.trunc(Number(event.target.value) || 0))))}
          />
        </label>
        <output data-testid="payout-preview" aria-live="polite">
          {formatBps(sellerBps)} to the seller: the seller receives{" "}
          <span data-testid="preview-seller">
            <Usdc wei={preview.sellerWei} />
          </span>{" "}
          (its share <Usdc wei={preview.sellerShareWei} /> less the platform fee of {formatBps(feeBps)},{" "}
          <Usdc wei={preview.feeWei} />
          ), the buyer gets back{" "}
          <span data-testid="preview-buyer">
            <Usdc wei={preview.buyerWei} />
          </span>
          .
        </output>
        <label>
          Note to both parties
          <textarea value={note} required rows={3} onChange={(event) => setNote(event.target.value)} />
        </label>
        <button type="submit" aria-busy={resolve.isPending} disabled={resolve.isPending || resolve.isSuccess}>
          Resolve
        </button>
      </form>
      {resolve.isError && <ErrorNote error={resolve.error} />}
      {resolve.data && (
        <p role="status">
          Resolved: {resolve.data.state}. The seller received <Usdc wei={resolve.data.resolution.seller_received_wei} />
          , the buyer got back <Usdc wei={resolve.data.resolution.buyer_refunded_wei} />.
        </p>
      )}
    </section>
  );
}
