/** An address or hash, shortened; the whole value on hover. */
export function Hex({ value }: { value: string | null | undefined }) {
  if (!value) return <span>—</span>;
  return (
    <code className="hex" title={value}>
      {value.length > 14 ? `${value.slice(0, 8)}…${value.slice(-4)}` : value}
    </code>
  );
}
