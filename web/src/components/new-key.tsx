import { useId, useState } from "react";
import { Modal } from "./modal.tsx";

/** What we say when the API sends no warning of its own (it always does today). */
const SHOWN_ONCE = "Save this API key now: it is shown once and cannot be retrieved later.";

/**
 * An API key shown once, in a dialog that keeps the focus (Escape does not close it) until the
 * person says they saved it: Copy, then "I have saved this key" enables Done. The warning is the
 * API's, said once.
 */
export function NewKeyDialog({
  apiKey,
  agentName,
  warning,
  onDone,
}: {
  apiKey: string;
  /** Whose key it is. */
  agentName: string;
  warning?: string;
  onDone: () => void;
}) {
  const titleId = useId();
  const [copied, setCopied] = useState<"yes" | "failed" | undefined>();
  const [saved, setSaved] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(apiKey);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  }
  return (
    <Modal
      labelledBy={titleId}
      onClose={onDone}
      dismissable={false}
      className="new-key-dialog"
      initialFocus=".copy-key"
    >
      <article>
        <header>
          <h2 id={titleId}>The API key of {agentName}</h2>
        </header>
        <p>
          <strong>{warning || SHOWN_ONCE}</strong>
        </p>
        <p>A program that holds it acts as {agentName} over the API: keep it where you keep passwords.</p>
        <code className="api-key" data-testid="new-api-key">
          {apiKey}
        </code>
        <p>
          <button type="button" className="secondary copy-key" onClick={copy}>
            Copy
          </button>{" "}
          <span role="status">
            {copied === "yes" && "Copied to the clipboard."}
            {copied === "failed" && "Could not copy: select the key and copy it by hand."}
          </span>
        </p>
        <footer>
          <label>
            <input type="checkbox" checked={saved} onChange={(event) => setSaved(event.target.checked)} />I have saved
            this key
          </label>
          <button type="button" disabled={!saved} onClick={onDone}>
            Done
          </button>
        </footer>
      </article>
    </Modal>
  );
}
