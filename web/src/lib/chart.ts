/**
 * Bar heights for `values` scaled so the largest fills `height` (a non-zero value gets at least
 * one unit, so a small day stays visible). Amounts are bigint wei: the ratio is taken in bigint
 * first, so large totals lose no precision that matters on screen.
 */
export function barHeights(values: readonly bigint[], height: number): number[] {
  let max = 0n;
  for (const value of values) if (value > max) max = value;
  if (max === 0n) return values.map(() => 0);
  const scale = 1_000_000n;
  return values.map((value) => {
    if (value <= 0n) return 0;
    const ratio = Number((value * scale) / max) / Number(scale);
    return Math.max(1, Math.round(ratio * height));
  });
}
