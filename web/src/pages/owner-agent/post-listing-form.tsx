import {
  type CreateListingReturnType,
  LISTING_CATEGORIES,
  type ListingCategory,
  type ListingType,
} from "@agent-marketplace/sdk";
import { useMutation } from "@tanstack/react-query";
import { lazy, Suspense, useId, useState } from "react";
import { Link } from "wouter";
import { InsufficientBalance } from "../../components/insufficient-balance.tsx";
import { balanceLines, feeLines, MoveRefusal, useOwnedAgent } from "../../components/money-review.tsx";
import { ReviewSheet } from "../../components/review-sheet.tsx";
import { ErrorNote, Loading } from "../../components/states.tsx";
import { useToast } from "../../components/toasts.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { formatUsdc, parseUsdc } from "../../lib/amounts.ts";
import { agentClient } from "../../lib/client.ts";
import { isStatus } from "../../lib/errors.ts";
import { useMarketChanged } from "../../lib/market-changed.ts";
import { useFeeBps } from "../../lib/platform-info.ts";

const WalletCalls = lazy(() => import("../../wallet/wallet-calls.tsx"));

const wholeHours = (text: string) => (text.trim() === "" ? undefined : Number(text));

/** What the form holds before it is sent; emptied once a listing is posted. */
interface Draft {
  type: ListingType;
  title: string;
  description: string;
  category: ListingCategory;
  price: string;
  negotiable: boolean;
  proposals: boolean;
  deadlineHours: string;
  expiresInHours: string;
}

const EMPTY: Draft = {
  type: "FIXED",
  title: "",
  description: "",
  category: "other",
  price: "",
  negotiable: true,
  proposals: false,
  deadlineHours: "",
  expiresInHours: "",
};

/**
 * POST /api/listings as the agent: a FIXED service, or a BOUNTY whose reward leaves the agent's
 * balance into escrow at once (reviewed first). Once posted the form empties (a second press
 * cannot post it twice) and a toast links to the new listing.
 */
export function PostListingForm({ agentId, walletAddress }: { agentId: string; walletAddress: string }) {
  const id = useId();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const set = <Key extends keyof Draft>(key: Key, value: Draft[Key]) =>
    setDraft((current) => ({ ...current, [key]: value }));
  const [reviewing, setReviewing] = useState(false);
  /** The last listing posted from here, kept after the form empties (an external bounty's funding needs it). */
  const [created, setCreated] = useState<CreateListingReturnType>();
  const priceWei = parseUsdc(draft.price);
  const bounty = draft.type === "BOUNTY";
  const changed = useMarketChanged();
  const toast = useToast();
  const feeBps = useFeeBps();
  const agent = useOwnedAgent(agentId);
  const post = useMutation({
    mutationFn: (sent: Draft & { priceWei: string }) =>
      agentClient(agentId).createListing({
        agent_id: agentId,
        title: sent.title.trim(),
        description: sent.description.trim(),
        price_wei: sent.priceWei,
        category: sent.category,
        listing_type: sent.type,
        is_negotiable: sent.type === "FIXED" && sent.negotiable,
        ...(sent.type === "BOUNTY" && sent.proposals && { accepts_proposals: true }),
        ...(sent.type === "BOUNTY" &&
          wholeHours(sent.deadlineHours) !== undefined && { deadline_hours: wholeHours(sent.deadlineHours) }),
        ...(sent.type === "BOUNTY" &&
          wholeHours(sent.expiresInHours) !== undefined && { expires_in_hours: wholeHours(sent.expiresInHours) }),
      }),
    onSuccess: (listing) => {
      setReviewing(false);
      setCreated(listing);
      setDraft(EMPTY);
      changed();
      const isBounty = listing.listing_type === "BOUNTY";
      toast({
        message: !isBounty
          ? `Posted "${listing.title}" at ${formatUsdc(listing.price_wei)} USDC.`
          : listing.funding?.state === "FUNDED"
            ? `Posted the bounty "${listing.title}": its ${formatUsdc(listing.price_wei)} USDC reward is in escrow.`
            : `Bounty "${listing.title}" saved: fund its reward from the agent's wallet to open it.`,
        link: { href: `/listings/${listing.id}`, label: "Open the listing" },
      });
    },
  });
  const confirm = useMutation({
    mutationFn: ({ transactionId, txHash }: { transactionId: string; txHash: string }) =>
      agentClient(agentId).confirmFunding({ id: transactionId, tx_hash: txHash }),
    onSuccess: () => {
      changed();
      if (created) {
        toast({
          message: `Funded: the bounty "${created.title}" is open.`,
          link: { href: `/listings/${created.id}`, label: "Open the listing" },
        });
      }
    },
  });
  const send = () => priceWei && post.mutate({ ...draft, priceWei });

  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Post a listing</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!priceWei || priceWei === "0" || post.isPending) return;
          post.reset();
          // A bounty takes its reward from the agent's balance at once: reviewed first.
          if (bounty) setReviewing(true);
          else send();
        }}
      >
        <fieldset>
          <legend>Type</legend>
          <label>
            <input type="radio" name={`${id}-type`} checked={!bounty} onChange={() => set("type", "FIXED")} />A service:
            buyers pay, you deliver
          </label>
          <label>
            <input type="radio" name={`${id}-type`} checked={bounty} onChange={() => set("type", "BOUNTY")} />A bounty:
            you fund a reward, an agent claims and delivers
          </label>
        </fieldset>
        <label>
          Title
          <input value={draft.title} required maxLength={200} onChange={(event) => set("title", event.target.value)} />
        </label>
        <label>
          Description
          <textarea
            value={draft.description}
            required
            rows={3}
            onChange={(event) => set("description", event.target.value)}
          />
        </label>
        <div className="grid">
          <label>
            Category
            <select
              value={draft.category}
              onChange={(event) => {
                const chosen = LISTING_CATEGORIES.find((option) => option === event.target.value);
                if (chosen) set("category", chosen);
              }}
            >
              {LISTING_CATEGORIES.map((option) => (
                <option key={option} value={option}>
                  {option}
                </option>
              ))}
            </select>
          </label>
          <label>
            {bounty ? "Reward (USDC)" : "Price (USDC)"}
            <input
              inputMode="decimal"
              value={draft.price}
              required
              aria-invalid={draft.price !== "" && !priceWei ? true : undefined}
              onChange={(event) => set("price", event.target.value)}
            />
            <small>{priceWei ? <Usdc wei={priceWei} /> : "An amount of USDC, up to 6 decimals."}</small>
          </label>
        </div>
        {bounty ? (
          <>
            <p>
              <strong>Posting a bounty takes its reward from the agent's balance at once</strong>, into escrow: you
              review the figures before anything is sent.
            </p>
            <div className="grid">
              <label>
                Hours to deliver after a claim (default 72)
                <input
                  type="number"
                  min={1}
                  max={720}
                  value={draft.deadlineHours}
                  onChange={(event) => set("deadlineHours", event.target.value)}
                />
              </label>
              <label>
                Hours the bounty stays open (default 720)
                <input
                  type="number"
                  min={1}
                  max={8760}
                  value={draft.expiresInHours}
                  onChange={(event) => set("expiresInHours", event.target.value)}
                />
              </label>
              <label>
                <input
                  type="checkbox"
                  checked={draft.proposals}
                  onChange={(event) => set("proposals", event.target.checked)}
                />
                Take proposals (agents pitch and you pick one, instead of the first claim winning)
              </label>
            </div>
          </>
        ) : (
          <label>
            <input
              type="checkbox"
              checked={draft.negotiable}
              onChange={(event) => set("negotiable", event.target.checked)}
            />
            Negotiable (buyers may offer another price)
          </label>
        )}
        <button type="submit" aria-busy={post.isPending && !reviewing} disabled={post.isPending}>
          {bounty ? "Post bounty" : "Post listing"}
        </button>
      </form>
      {!reviewing &&
        post.isError &&
        (isStatus(post.error, 402) ? <InsufficientBalance error={post.error} /> : <ErrorNote error={post.error} />)}
      {reviewing && priceWei && (
        <ReviewSheet
          title={`Post the bounty "${draft.title.trim()}"`}
          lines={[
            { label: "Reward (leaves the balance now, into escrow)", wei: priceWei, strong: true },
            ...feeLines(priceWei, feeBps, "The worker"),
            ...balanceLines(agent, priceWei),
          ]}
          irreversible={
            <>
              The reward leaves {agent?.name ?? "the agent"}'s balance into escrow as soon as you confirm. It comes back
              only if no one delivers: by a refund when the bounty expires unclaimed (after{" "}
              {wholeHours(draft.expiresInHours) ?? 720} hours), or by a refund or dispute once claimed.
            </>
          }
          confirmLabel={`Confirm: post and fund ${formatUsdc(priceWei)} USDC`}
          onConfirm={send}
          onCancel={() => setReviewing(false)}
          pending={post.isPending}
        >
          {agent && !agent.hosted && <p>{agent.name} pays from its own wallet: you send the funding from it next.</p>}
          <MoveRefusal error={post.error} />
        </ReviewSheet>
      )}
      {created && (
        <div role="status">
          <p>
            Posted <Link href={`/listings/${created.id}`}>{created.title}</Link>
            {created.funding?.state === "FUNDED" && ": the reward is in escrow"}.
          </p>
          {created.funding?.instructions && !confirm.isSuccess && (
            <Suspense fallback={<Loading label="Loading the wallet…" />}>
              <p>Fund the reward from the agent's wallet; the bounty shows in the marketplace once funded.</p>
              <WalletCalls
                calls={created.funding.instructions.calls}
                chainId={created.funding.instructions.chain_id}
                expectedAddress={walletAddress}
                onSent={(txHash) =>
                  created.funding && confirm.mutate({ transactionId: created.funding.transaction_id, txHash })
                }
              />
            </Suspense>
          )}
          {confirm.isSuccess && <p>Funded: the bounty is open.</p>}
          {confirm.isError && <ErrorNote error={confirm.error} />}
        </div>
      )}
    </section>
  );
}
