import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { Link } from "wouter";
import { Empty, ErrorNote, Loaded } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { agentClient, client } from "../../lib/client.ts";
import { agentKeys, ownerKeys } from "../../lib/query-keys.ts";

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
      <SendMessage
        agentId={agentId}
        peer={conversations.data?.conversations.find((conversation) => conversation.peer.id === peerId)?.peer}
        onSent={setPeerId}
      />
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

/** The agent a message goes to, chosen by name. */
interface Recipient {
  id: string;
  name: string;
}

/** How long typing rests before the directory is asked (ms). */
const SEARCH_PAUSE_MS = 250;

/**
 * A message to an agent chosen by name: the name typed is looked up in the directory, and a name
 * from its answer is chosen (exactly one agent of that very name is taken as chosen). With a
 * conversation open and no name, the message answers it. What is sent is the chosen agent's id:
 * a name never reaches the API as an id.
 */
function SendMessage({
  agentId,
  peer,
  onSent,
}: {
  agentId: string;
  peer: Recipient | undefined;
  onSent: (peer: string) => void;
}) {
  const queryClient = useQueryClient();
  const id = useId();
  const [name, setName] = useState("");
  const [chosen, setChosen] = useState<Recipient>();
  const [content, setContent] = useState("");
  const [problem, setProblem] = useState<string>();
  const term = useSettled(name.trim(), SEARCH_PAUSE_MS);
  const query = { search: term, limit: 8 };
  const found = useQuery({
    queryKey: agentKeys.list(query),
    queryFn: () => client.listAgents(query),
    enabled: !chosen && term.length >= 2,
  });
  const matches = (found.data?.agents ?? []).filter((agent) => agent.id !== agentId);
  const sameName = matches.filter((agent) => agent.name.toLowerCase() === name.trim().toLowerCase());
  const recipient: Recipient | undefined =
    chosen ?? (sameName.length === 1 ? sameName[0] : undefined) ?? (name.trim() ? undefined : peer);
  const send = useMutation({
    mutationFn: (to: Recipient) => agentClient(agentId).sendMessage({ to_agent_id: to.id, content }),
    onSuccess: (_, to) => {
      setContent("");
      setName("");
      setChosen(undefined);
      onSent(to.id);
      void queryClient.invalidateQueries({ queryKey: ownerKeys.conversations(agentId) });
      void queryClient.invalidateQueries({ queryKey: ownerKeys.thread(agentId, to.id) });
    },
  });
  return (
    <form
      aria-labelledby={`${id}-heading`}
      onSubmit={(event) => {
        event.preventDefault();
        if (!content.trim()) return;
        if (!recipient) {
          setProblem(
            name.trim()
              ? `Choose who “${name.trim()}” is from the names found.`
              : "Type the name of the agent to write to.",
          );
          return;
        }
        setProblem(undefined);
        send.mutate(recipient);
      }}
    >
      <h3 id={`${id}-heading`}>Write a message</h3>
      {chosen ? (
        <p>
          To <strong data-testid="message-recipient">{chosen.name}</strong>{" "}
          <button type="button" className="secondary outline" onClick={() => setChosen(undefined)}>
            Choose someone else
          </button>
        </p>
      ) : (
        <>
          <label>
            To (the agent's name){peer && `, or leave empty to answer ${peer.name}`}
            <input
              type="search"
              value={name}
              autoComplete="off"
              aria-describedby={`${id}-found`}
              onChange={(event) => {
                setName(event.target.value);
                setProblem(undefined);
              }}
            />
          </label>
          <div id={`${id}-found`} aria-live="polite">
            {term.length >= 2 && found.isSuccess && matches.length === 0 && (
              <p className="empty">No agent has “{term}” in its name.</p>
            )}
            {matches.length > 0 && (
              <ul className="recipient-matches" aria-label="Agents found">
                {matches.map((agent) => (
                  <li key={agent.id}>
                    <button
                      type="button"
                      className="secondary outline"
                      onClick={() => {
                        setChosen({ id: agent.id, name: agent.name });
                        setProblem(undefined);
                      }}
                    >
                      {agent.name}
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </div>
        </>
      )}
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
        {recipient ? `Send to ${recipient.name}` : "Send message"}
      </button>
      {problem && (
        <p role="alert" className="error-note">
          {problem}
        </p>
      )}
      {send.isError && <ErrorNote error={send.error} />}
    </form>
  );
}

/** `value` once it has stayed the same for `ms`. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
