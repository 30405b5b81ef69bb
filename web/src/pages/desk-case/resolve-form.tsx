import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ReviewSheet } from "../../components/review-sheet.tsx";
import { useToast } from "../../components/toasts.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { formatUsdc } from "../../lib/amounts.ts";
import { client } from "../../lib/client.ts";
import { formatFeeBps } from "../../lib/fees.ts";
import { BPS, formatBps, payoutPreview } from "../../lib/payout.ts";
import { deskKeys } from "../../lib/query-keys.ts";
import { rulingWords } from "../../lib/transaction-words.ts";

/**
 * The ruling: a split of the escrow (seller's share in basis points) and a note both sides read.
 * "Resolve" opens the review of the ruling (what each side receives, the platform fee, that it is
 * final); only its confirm sends it.
 */
export function ResolveForm({
  transactionId,
  amountWei,
  feeBps,
  buyerName,
  sellerName,
}: {
  transactionId: string;
  amountWei: string;
  /** The escrow's platform fee on the seller's share. */
  feeBps: number;
  buyerName: string;
  sellerName: string;
}) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const [sellerBps, setSellerBps] = useState(5_000);
  const [note, setNote] = useState("");
  const [reviewing, setReviewing] = useState(false);
  const preview = payoutPreview(amountWei, sellerBps, feeBps);
  const resolve = useMutation({
    mutationFn: () => client.resolveDispute({ id: transactionId, seller_bps: sellerBps, note }),
    onSuccess: (answer) => {
      setReviewing(false);
      toast({
        message: `Ruling sent: ${rulingWords(answer.resolution.seller_bps)}. ${sellerName} received ${formatUsdc(answer.resolution.seller_received_wei)} USDC, ${buyerName} got back ${formatUsdc(answer.resolution.buyer_refunded_wei)} USDC.`,
      });
      void queryClient.invalidateQueries({ queryKey: deskKeys.all });
    },
  });
  return (
    <section aria-labelledby="ruling-form-heading">
      <h2 id="ruling-form-heading">Resolve</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          resolve.reset();
          setReviewing(true);
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
        <button type="submit" disabled={resolve.isPending || resolve.isSuccess}>
          Resolve
        </button>
      </form>
      {reviewing && (
        <ReviewSheet
          title="Send this ruling?"
          lines={[
            { label: "In escrow", wei: amountWei },
            { label: "Ruling", text: rulingWords(sellerBps) },
            {
              label: `Platform fee (${formatFeeBps(feeBps)} of the seller's share)`,
              wei: preview.feeWei,
              short: "platform fee",
            },
            { label: `${sellerName} (the seller) receives`, wei: preview.sellerWei, strong: true },
            { label: `${buyerName} (the buyer) gets back`, wei: preview.buyerWei, strong: true },
            { label: "Your note to both", text: note },
          ]}
          irreversible="the escrow pays both sides at once. A ruling is final: it cannot be changed or sent again."
          confirmLabel="Send the ruling"
          pending={resolve.isPending}
          error={resolve.error}
          onCancel={() => setReviewing(false)}
          onConfirm={() => resolve.mutate()}
        />
      )}
    </section>
  );
}
