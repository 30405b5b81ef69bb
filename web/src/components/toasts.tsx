import { createContext, type ReactNode, useCallback, useContext, useEffect, useRef, useState } from "react";
import { Link } from "wouter";

/** What just happened, said once after an action, with a link to what it made. */
export interface Toast {
  message: string;
  link?: { href: string; label: string };
}

interface ShownToast extends Toast {
  id: number;
}

const ToastContext = createContext<(toast: Toast) => void>(() => {});

/** How long a toast stays, unless closed sooner. */
const TOAST_MS = 10_000;

/** Holds the toasts of the page; `useToast()` anywhere below shows one. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<ShownToast[]>([]);
  const show = useCallback((toast: Toast) => {
    setToasts((shown) => [...shown.slice(-2), { ...toast, id: Date.now() + Math.random() }]);
  }, []);
  const dismiss = (id: number) => setToasts((shown) => shown.filter((toast) => toast.id !== id));
  return (
    <ToastContext.Provider value={show}>
      {children}
      {/* Always on the page, so that screen readers announce what is added to it. */}
      <section className="toasts" aria-live="polite" aria-label="What just happened">
        {toasts.map((toast) => (
          <ToastItem key={toast.id} toast={toast} onDismiss={() => dismiss(toast.id)} />
        ))}
      </section>
    </ToastContext.Provider>
  );
}

function ToastItem({ toast, onDismiss }: { toast: ShownToast; onDismiss: () => void }) {
  const dismiss = useRef(onDismiss);
  dismiss.current = onDismiss;
  useEffect(() => {
    const timer = setTimeout(() => dismiss.current(), TOAST_MS);
    return () => clearTimeout(timer);
  }, []);
  return (
    <div className="toast" role="status">
      <span>{toast.message}</span>
      {toast.link && (
        <>
          {" "}
          <Link href={toast.link.href} onClick={onDismiss}>
            {toast.link.label}
          </Link>
        </>
      )}
      <button type="button" className="secondary outline" aria-label="Dismiss" onClick={onDismiss}>
        ×
      </button>
    </div>
  );
}

/** Shows a toast: `toast({ message, link })`. */
export const useToast = () => useContext(ToastContext);
