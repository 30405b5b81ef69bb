import { type ReactNode, useEffect, useRef } from "react";

/** What can take focus inside an element, in tab order (disabled and hidden ones left out). */
const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function focusablesOf(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((element) => element.offsetParent !== null);
}

/**
 * A modal dialog: the native `<dialog>` opened with showModal (the page behind is inert), Tab and
 * Shift+Tab kept among its own controls, Escape (and the Close button, if the caller draws one)
 * calls `onClose`, and on close the focus goes back to what had it before, usually the button
 * that opened it. `dismissable: false` keeps it open on Escape (the key reveal, until the person
 * confirms). The first control (or `initialFocus`) gets the focus.
 */
export function Modal({
  labelledBy,
  onClose,
  dismissable = true,
  initialFocus,
  className,
  children,
}: {
  labelledBy: string;
  onClose: () => void;
  dismissable?: boolean;
  /** A CSS selector inside the dialog for the control to focus first. */
  initialFocus?: string;
  className?: string;
  children: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const close = useRef(onClose);
  close.current = onClose;
  // Read once, when the dialog opens: a later value does not move the focus.
  const firstFocus = useRef(initialFocus);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    if (!element.open) element.showModal();
    const first =
      (firstFocus.current && element.querySelector<HTMLElement>(firstFocus.current)) ||
      focusablesOf(element).find((candidate) => candidate.getAttribute("rel") !== "prev") ||
      focusablesOf(element)[0];
    first?.focus();
    return () => {
      if (element.open) element.close();
      // Back to the opener, if it is still on the page (an action may have removed it).
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  return (
    <dialog
      ref={dialog}
      aria-modal="true"
      aria-labelledby={labelledBy}
      className={className}
      onCancel={(event) => {
        // Escape: the dialog closes through its owner's state, never by itself.
        event.preventDefault();
        if (dismissable) close.current();
      }}
      onKeyDown={(event) => {
        if (event.key !== "Tab" || !dialog.current) return;
        const controls = focusablesOf(dialog.current);
        if (controls.length === 0) return;
        const first = controls[0] as HTMLElement;
        const last = controls[controls.length - 1] as HTMLElement;
        const active = document.activeElement;
        if (event.shiftKey && (active === first || !dialog.current.contains(active))) {
          event.preventDefault();
          last.focus();
        } else if (!event.shiftKey && (active === last || !dialog.current.contains(active))) {
          event.preventDefault();
          first.focus();
        }
      }}
    >
      {children}
    </dialog>
  );
}
