import type { ReactNode } from "react";
import { errorText } from "../lib/errors.ts";

/** Something is being fetched. */
export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p aria-busy="true" className="loading">
      {label}
    </p>
  );
}

/** A failure, with the API's own words. */
export function ErrorNote({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div role="alert" className="error-note">
      <p>{errorText(error)}</p>
      {retry && (
        <button type="button" className="secondary" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Nothing to show, said plainly. */
export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

interface QueryLike<T> {
  data: T | undefined;
  error: unknown;
  isPending: boolean;
  refetch: () => unknown;
}

/** The loading and error states of a query, then its data. */
export function Loaded<T>({
  query,
  label,
  children,
}: {
  query: QueryLike<T>;
  label?: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading label={label} />;
  if (query.data === undefined) return <ErrorNote error={query.error} retry={() => query.refetch()} />;
  return <>{children(query.data)}</>;
}
