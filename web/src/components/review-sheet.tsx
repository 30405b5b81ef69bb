import { type ReactNode, useId } from "react";
import { Modal } from "./modal.tsx";
import { ErrorNote } from "./states.tsx";
import { ExactFiguresNote, Usdc } from "./usdc.tsx";

/** One line of a review: an amount (USDC wei) or words. */
export interface ReviewLine {
  label: string;
  wei?: string | bigint;
  text?: ReactNode;
  /** The line that matters most (what is paid, what arrives): shown in bold. */
  strong?: boolean;
  /** A short name for the exact figures' note ("platform fee"), when the label is long. */
  short?: string;
}

/**
 * The review before a money move: what it costs, the platform fee, what the other side receives,
 * the agent's balance after, and what cannot be undone. Nothing is sent until "confirm"; Cancel,
 * Escape or the Close button send nothing. While the move is pending the sheet stays, busy; a
 * refusal shows inside it, in the API's words.
 */
export function ReviewSheet({
  title,
  lines,
  irreversible,
  confirmLabel,
  onConfirm,
  onCancel,
  pending = false,
  error,
  children,
}: {
  title: string;
  lines: ReviewLine[];
  /** What cannot be undone once confirmed, in one or two sentences. */
  irreversible: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  pending?: boolean;
  error?: unknown;
  /** Anything the move needs besides (a note to the other side…), shown above the figures. */
  children?: ReactNode;
}) {
  const titleId = useId();
  return (
    <Modal labelledBy={titleId} onClose={() => !pending && onCancel()} className="review-sheet">
      <article>
        <header>
          <h2 id={titleId}>{title}</h2>
        </header>
        {children}
        <dl className="facts review-lines" data-testid="review-sheet">
          {lines.map((line) => (
            <div key={line.label} className={line.strong ? "review-line strong" : "review-line"}>
              <dt>{line.label}</dt>
              <dd>{line.wei !== undefined ? <Usdc wei={line.wei} /> : line.text}</dd>
            </div>
          ))}
        </dl>
        <ExactFiguresNote
          figures={lines.flatMap((line) =>
            line.wei === undefined ? [] : [{ label: line.short ?? line.label, wei: line.wei }],
          )}
        />
        <p className="irreversible">
          <strong>Cannot be undone:</strong> {irreversible}
        </p>
        {error !== undefined && error !== null && <ErrorNote error={error} />}
        <footer>
          <button type="button" className="secondary" onClick={onCancel} disabled={pending}>
            Cancel
          </button>
          <button type="button" onClick={onConfirm} aria-busy={pending} disabled={pending}>
            {confirmLabel}
          </button>
        </footer>
      </article>
    </Modal>
  );
}
