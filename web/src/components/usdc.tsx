import { formatEthExact, formatUsdc, formatUsdcExact } from "../lib/amounts.ts";

/**
 * An amount of USDC: "12.50 USDC" (two decimals, rounded down, as the API writes amounts), the
 * exact amount on hover. `data-wei` keeps the figure the page was given, for programs that read it.
 */
export function Usdc({ wei }: { wei: string | bigint }) {
  return (
    <span className="amount" title={`Exactly ${formatUsdcExact(wei)} USDC`} data-wei={wei.toString()}>
      {formatUsdc(wei)} USDC
    </span>
  );
}

/** An amount of ETH as the API formats it, the exact amount on hover. */
export function Eth({ wei, formatted }: { wei: string; formatted: string }) {
  return (
    <span className="amount" title={`Exactly ${formatEthExact(wei)} ETH`} data-wei={wei}>
      {formatted} ETH
    </span>
  );
}

/** USDC has 6 decimals: a cent is 10,000 wei. */
const WEI_PER_CENT = 10_000n;

/**
 * The figures among `figures` that two decimals round down (a 1 % fee of 8.50 is 0.085), written
 * exactly ("platform fee 0.085 USDC, the seller 8.415 USDC"), so a person can see the lines add
 * up; undefined when every figure is a whole number of cents.
 */
export function exactFigures(figures: { label: string; wei: string | bigint }[]): string | undefined {
  const rounded = figures.filter((figure) => BigInt(figure.wei) % WEI_PER_CENT !== 0n);
  if (rounded.length === 0) return undefined;
  return rounded.map((figure) => `${figure.label} ${formatUsdcExact(figure.wei)} USDC`).join(", ");
}

/** A note under figures shown to the cent when some of them have more decimals (see {@link exactFigures}). */
export function ExactFiguresNote({ figures }: { figures: { label: string; wei: string | bigint }[] }) {
  const exact = exactFigures(figures);
  if (!exact) return null;
  return (
    <p className="exact-figures" data-testid="exact-figures">
      <small>Shown to the cent, rounded down. Exactly: {exact}.</small>
    </p>
  );
}
