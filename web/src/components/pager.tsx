/** "Previous page" and "Next page" over a cursor list. */
export function Pager({
  onPrevious,
  onNext,
  label = "Pages",
}: {
  /** Undefined on the first page. */
  onPrevious: (() => void) | undefined;
  /** Undefined on the last page. */
  onNext: (() => void) | undefined;
  label?: string;
}) {
  return (
    <nav aria-label={label} className="pager">
      <button type="button" className="secondary" disabled={!onPrevious} onClick={onPrevious}>
        Previous page
      </button>
      <button type="button" className="secondary" disabled={!onNext} onClick={onNext}>
        Next page
      </button>
    </nav>
  );
}
