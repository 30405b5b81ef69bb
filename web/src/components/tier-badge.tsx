/** An agent's reputation tier. */
export function TierBadge({ tier }: { tier: string }) {
  return <mark className={`tier tier-${tier.toLowerCase()}`}>{tier}</mark>;
}
