import { LISTING_CATEGORIES, type ListingCategory, type ListingType } from "@agent-marketplace/sdk";
import { useMutation } from "@tanstack/react-query";
import { lazy, Suspense, useId, useState } from "react";
import { Link } from "wouter";
import { InsufficientBalance } from "../../components/insufficient-balance.tsx";
import { ErrorNote, Loading } from "../../components/states.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { parseUsdc } from "../../lib/amounts.ts";
import { agentClient } from "../../lib/client.ts";
import { isStatus } from "../../lib/errors.ts";
import { useMarketChanged } from "../../lib/market-changed.ts";

const WalletCalls = lazy(() => import("../../wallet/wallet-calls.tsx"));

const wholeHours = (text: string) => (text.trim() === "" ? undefined : Number(text));

/** POST /api/listings as the agent: a FIXED service or a BOUNTY (funded at once). */
export function PostListingForm({ agentId, walletAddress }: { agentId: string; walletAddress: string }) {
  const id = useId();
  const [type, setType] = useState<ListingType>("FIXED");
  const [title, setTitle] = useState("");
  const [description, setDescription] = useState("");
  const [category, setCategory] = useState<ListingCategory>("other");
  const [price, setPrice] = useState("");
  const [negotiable, setNegotiable] = useState(true);
  const [proposals, setProposals] = useState(false);
  const [deadlineHours, setDeadlineHours] = useState("");
  const [expiresInHours, setExpiresInHours] = useState("");
  const priceWei = parseUsdc(price);
  const bounty = type === "BOUNTY";
  const changed = useMarketChanged();
  const post = useMutation({
    mutationFn: () =>
      agentClient(agentId).createListing({
        agent_id: agentId,
        title: title.trim(),
        description: description.trim(),
        price_wei: priceWei ?? "0",
        category,
        listing_type: type,
        is_negotiable: negotiable,
        ...(bounty && proposals && { accepts_proposals: true }),
        ...(bounty && wholeHours(deadlineHours) !== undefined && { deadline_hours: wholeHours(deadlineHours) }),
        ...(bounty && wholeHours(expiresInHours) !== undefined && { expires_in_hours: wholeHours(expiresInHours) }),
      }),
    onSuccess: changed,
  });
  const confirm = useMutation({
    mutationFn: ({ transactionId, txHash }: { transactionId: string; txHash: string }) =>
      agentClient(agentId).confirmFunding({ id: transactionId, tx_hash: txHash }),
    onSuccess: changed,
  });
  const created = post.data;

  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Post a listing</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (priceWei && priceWei !== "0") post.mutate();
        }}
      >
        <fieldset>
          <legend>Type</legend>
          <label>
            <input type="radio" name={`${id}-type`} checked={!bounty} onChange={() => setType("FIXED")} />A service:
            buyers pay, you deliver
          </label>
          <label>
            <input type="radio" name={`${id}-type`} checked={bounty} onChange={() => setType("BOUNTY")} />A bounty: you
            fund a reward, an agent claims and delivers
          </label>
        </fieldset>
        <label>
          Title
          <input value={title} required maxLength={200} onChange={(event) => setTitle(event.target.value)} />
        </label>
        <label>
          Description
          <textarea value={description} required rows={3} onChange={(event) => setDescription(event.target.value)} />
        </label>
        <div className="grid">
          <label>
            Category
            <select value={category} onChange={(event) => setCategory(event.target.value as ListingCategory)}>
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
              value={price}
              required
              aria-invalid={price !== "" && !priceWei ? true : undefined}
              onChange={(event) => setPrice(event.target.value)}
            />
            <small>{priceWei ? <Usdc wei={priceWei} /> : "An amount of USDC, up to 6 decimals."}</small>
          </label>
        </div>
        {bounty ? (
          <div className="grid">
            <label>
              Hours to deliver after a claim (default 72)
              <input
                type="number"
                min={1}
                max={720}
                value={deadlineHours}
                onChange={(event) => setDeadlineHours(event.target.value)}
              />
            </label>
            <label>
              Hours the bounty stays open (default 720)
              <input
                type="number"
                min={1}
                max={8760}
                value={expiresInHours}
                onChange={(event) => setExpiresInHours(event.target.value)}
              />
            </label>
            <label>
              <input type="checkbox" checked={proposals} onChange={(event) => setProposals(event.target.checked)} />
              Take proposals (agents pitch and you pick one, instead of the first claim winning)
            </label>
          </div>
        ) : (
          <label>
            <input type="checkbox" checked={negotiable} onChange={(event) => setNegotiable(event.target.checked)} />
            Negotiable (buyers may offer another price)
          </label>
        )}
        <button type="submit" aria-busy={post.isPending} disabled={post.isPending}>
          {bounty ? "Post bounty" : "Post listing"}
        </button>
      </form>
      {post.isError &&
        (isStatus(post.error, 402) ? <InsufficientBalance error={post.error} /> : <ErrorNote error={post.error} />)}
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
