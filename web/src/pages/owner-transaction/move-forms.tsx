import { useId, useState } from "react";

/*
 * The forms of the moves that take words: deliver (the work), dispute (a reason, and evidence at
 * once), evidence (while disputed), review (after release).
 */

export function DeliverForm({
  busy,
  onDeliver,
}: {
  busy: boolean;
  onDeliver: (body: { deliverable: string; deliverable_url?: string }) => void;
}) {
  const [work, setWork] = useState("");
  const [url, setUrl] = useState("");
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (work.trim()) onDeliver({ deliverable: work, ...(url.trim() && { deliverable_url: url.trim() }) });
      }}
    >
      <h3>Deliver</h3>
      <label>
        Deliverable
        <textarea value={work} required rows={4} onChange={(event) => setWork(event.target.value)} />
      </label>
      <label>
        Link to the work (optional)
        <input type="url" value={url} onChange={(event) => setUrl(event.target.value)} />
      </label>
      <button type="submit" disabled={busy}>
        Deliver
      </button>
    </form>
  );
}

export function DisputeForm({
  busy,
  onDispute,
}: {
  busy: boolean;
  onDispute: (input: { reason: string; evidence?: { content: string; url?: string } }) => void;
}) {
  const [reason, setReason] = useState("");
  const [evidence, setEvidence] = useState("");
  const [url, setUrl] = useState("");
  return (
    <details>
      <summary>Raise a dispute</summary>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!reason.trim()) return;
          onDispute({
            reason: reason.trim(),
            ...(evidence.trim() && { evidence: { content: evidence.trim(), ...(url.trim() && { url: url.trim() }) } }),
          });
        }}
      >
        <label>
          Reason
          <textarea value={reason} required rows={3} onChange={(event) => setReason(event.target.value)} />
        </label>
        <label>
          Evidence (optional)
          <textarea value={evidence} rows={3} onChange={(event) => setEvidence(event.target.value)} />
        </label>
        <label>
          Evidence link (optional)
          <input type="url" value={url} onChange={(event) => setUrl(event.target.value)} />
        </label>
        <button type="submit" className="contrast" disabled={busy}>
          Raise dispute
        </button>
      </form>
    </details>
  );
}

export function EvidenceForm({
  busy,
  onEvidence,
}: {
  busy: boolean;
  onEvidence: (body: { content: string; url?: string }) => void;
}) {
  const [content, setContent] = useState("");
  const [url, setUrl] = useState("");
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (content.trim()) onEvidence({ content: content.trim(), ...(url.trim() && { url: url.trim() }) });
        setContent("");
        setUrl("");
      }}
    >
      <h3>Add evidence for the arbiter</h3>
      <label>
        Evidence
        <textarea value={content} required rows={3} onChange={(event) => setContent(event.target.value)} />
      </label>
      <label>
        Link (optional)
        <input type="url" value={url} onChange={(event) => setUrl(event.target.value)} />
      </label>
      <button type="submit" disabled={busy}>
        Add evidence
      </button>
    </form>
  );
}

export function ReviewForm({
  busy,
  onReview,
}: {
  busy: boolean;
  onReview: (body: { rating: number; comment?: string }) => void;
}) {
  const id = useId();
  const [rating, setRating] = useState(5);
  const [comment, setComment] = useState("");
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onReview({ rating, ...(comment.trim() && { comment: comment.trim() }) });
      }}
    >
      <h3>Review the other party</h3>
      <label htmlFor={`${id}-rating`}>Rating</label>
      <select id={`${id}-rating`} value={rating} onChange={(event) => setRating(Number(event.target.value))}>
        {[5, 4, 3, 2, 1].map((stars) => (
          <option key={stars} value={stars}>
            {stars} of 5
          </option>
        ))}
      </select>
      <label>
        Comment (optional)
        <textarea value={comment} rows={2} onChange={(event) => setComment(event.target.value)} />
      </label>
      <button type="submit" disabled={busy}>
        Post review
      </button>
    </form>
  );
}
