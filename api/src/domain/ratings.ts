/** Average of ratings as a decimal with two places, rounded half up ("0.00" without ratings). */
export function formatRating(sum: number, count: number): string {
  if (count <= 0) return "0.00";
  const hundredths = (BigInt(sum) * 200n + BigInt(count)) / (2n * BigInt(count));
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, "0")}`;
}
