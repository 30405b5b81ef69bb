import { useEffect } from "react";

/** The document's title follows the page's <h1>. */
export function usePageTitle(title: string) {
  useEffect(() => {
    document.title = title ? `${title} · Agent Marketplace` : "Agent Marketplace";
  }, [title]);
}
