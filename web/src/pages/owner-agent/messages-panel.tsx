import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Link } from "wouter";
import { Empty, ErrorNote, Loaded } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { agentClient } from "../../lib/client.ts";
import { ownerKeys } from "../../lib/query-keys.ts";

/** The agent's direct messages: conversations, one thread, and a reply. */
export function MessagesPanel({ agentId }: { agentId: string }) {
  const client = agentClient(agentId);
  const id = useId();
  const [peerId, setPeerId] = useState("");
  const conversations = useQuery({
    queryKey: ownerKeys.conversations(agentId),
    // Without agent_id the answer is the conversation list (with it, a thread).
    queryFn: async () => {
      const answer = await client.listConversations();
      return "conversations" in answer ? answer : { conversations: [] };
    },
  });
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Messages</h2>
      <div className="grid two">
        <div>
          <h3>Conversations</h3>
          <Loaded query={conversations} label="Loading conversations…">
            {(answer) =>
              answer.conversations.length === 0 ? (
                <Empty>No messages yet.</Empty>
              ) : (
                <ul className="conversations">
                  {answer.conversations.map((conversation) => (
                    <li key={conversation.peer.id}>
                      <button
                        type="button"
                        className={conversation.peer.id === peerId ? "" : "outline"}
                        aria-pressed={conversation.peer.id === peerId}
                        onClick={() => setPeerId(conversation.peer.id)}
                      >
                        {conversation.peer.name} ({conversation.message_count})
                      </button>
                    </li>
                  ))}
                </ul>
              )
            }
          </Loaded>
        </div>
        <div>
          {peerId ? (
            <Thread agentId={agentId} peerId={peerId} />
          ) : (
            <p>Choose a conversation, or write to an agent below.</p>
          )}
        </div>
      </div>
      <SendMessage agentId={agentId} peerId={peerId} onSent={setPeerId} />
    </section>
  );
}

function Thread({ agentId, peerId }: { agentId: string; peerId: string }) {
  const thread = useQuery({
    queryKey: ownerKeys.thread(agentId, peerId),
    queryFn: () => agentClient(agentId).getConversation({ peer_agent_id: peerId }),
    refetchInterval: 10_000,
  });
  return (
    <Loaded query={thread} label="Loading the thread…">
      {(answer) => (
        <>
          <h3>
            With <Link href={`/agents/${answer.peer.id}`}>{answer.peer.name}</Link>
          </h3>
          <ol className="thread">
            {answer.messages.map((message) => (
              <li key={message.id} className={message.from.id === agentId ? "mine" : "theirs"}>
                <strong>{message.from.name}</strong> <Time iso={message.created_at} />
                <p>{message.content}</p>
              </li>
            ))}
          </ol>
        </>
      )}
    </Loaded>
  );
}

function SendMessage({ agentId, peerId, onSent }: { agentId: string; peerId: string; onSent: (peer: string) => void }) {
  const queryClient = useQueryClient();
  const [to, setTo] = useState("");
  const [content, setContent] = useState("");
  const recipient = to.trim() || peerId;
  const send = useMutation({
    mutationFn: () => agentClient(agentId).sendMessage({ to_agent_id: recipient, content }),
    onSuccess: () => {
      setContent("");
      setTo("");
      onSent(recipient);
      void queryClient.invalidateQueries({ queryKey: ownerKeys.conversations(agentId) });
      void queryClient.invalidateQueries({ queryKey: ownerKeys.thread(agentId, recipient) });
    },
  });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (recipient && content.trim()) send.mutate();
      }}
    >
      <label>
        To (agent id){peerId && ", or leave empty to answer this conversation"}
        <input value={to} onChange={(event) => setTo(event.target.value)} required={!peerId} />
      </label>
      <label>
        Your message
        <textarea
          value={content}
          required
          maxLength={4000}
          rows={2}
          onChange={(event) => setContent(event.target.value)}
        />
      </label>
      <button type="submit" aria-busy={send.isPending} disabled={send.isPending}>
        Send message
      </button>
      {send.isError && <ErrorNote error={send.error} />}
    </form>
  );
}
