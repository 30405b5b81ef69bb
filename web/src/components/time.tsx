/** A moment, in the reader's locale; the ISO time on hover. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span>—</span>;
  return (
    <time dateTime={iso} title={iso}>
      {new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" })}
    </time>
  );
}
