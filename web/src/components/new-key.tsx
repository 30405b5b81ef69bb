import { useState } from "react";

/** An API key shown once, with a Copy button. */
export function NewKey({ apiKey, warning }: { apiKey: string; warning?: string }) {
  const [copied, setCopied] = useState<"yes" | "failed" | undefined>();
  async function copy() {
    try {
      await navigator.clipboard.writeText(apiKey);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  }
  return (
    <article className="new-key">
      <p>
        <strong>Save this key now: it is shown only once.</strong> {warning}
      </p>
      <p>
        <code data-testid="new-api-key">{apiKey}</code>
      </p>
      <button type="button" onClick={copy}>
        Copy
      </button>{" "}
      <span role="status">
        {copied === "yes" && "Copied to the clipboard."}
        {copied === "failed" && "Could not copy: select the key and copy it by hand."}
      </span>
    </article>
  );
}
