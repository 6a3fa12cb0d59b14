/**
 * Live mode's sessions: which served turns are one conversation, and what
 * came after each assistant reply (the next state it is judged from). An
 * outside client (OpenClaw) sends no plugin's data, so a conversation is
 * recognised the first way that applies:
 *
 * 1. OpenClaw-RL's headers: the turns with one `X-Session-Id`. Only its
 *    main turns are the conversation (`X-Turn-Type: side` is a helper call
 *    that never trains); `X-Session-Done` ends the session after its reply.
 * 2. OpenClaw's session-affinity headers: `session_id`, else
 *    `x-session-affinity`, else `x-client-request-id`. OpenClaw sends the
 *    same value in all three, `<session-id>:<n>`, where `n` counts the
 *    times it compacted the session's history; the session is
 *    `<session-id>`, whatever `n`. OpenClaw's own helper runs send the
 *    session's headers too — the summarizer that compacts the history (a
 *    bare `<session-id>`), the memory flush before it — each with a system
 *    prompt of its own: a request whose system prompt is not the one its
 *    session opened with is a side turn (served, never part of the
 *    conversation), so a helper's prompt is never taken for the user's next
 *    message.
 * 3. The message prefix: every request carries the conversation so far, so a
 *    request whose messages start with an earlier request's messages followed
 *    by that request's reply continues that conversation. A reply continued a
 *    second time is a fork (the user went back and said something else): the
 *    fork is a session of its own, and the reply keeps the next state it got
 *    first (one reply, one judgment). A request on a rewritten history (a
 *    summary where the early turns were) goes on with the conversation
 *    whose last reply it ends on, under the same system prompt. Without
 *    headers an agent's helper runs are told by what they carry
 *    (helperRunOf): a request that puts a system prompt of its own over an
 *    open conversation's messages (OpenClaw's memory flush, and its tool
 *    calls' follow-ups), or quotes the conversation's last reply inside a
 *    message (the summarizer that compacts the history), is a side turn of
 *    that conversation. What cannot be told apart: a helper that does
 *    neither is a conversation of its own; and of two open conversations
 *    with the same system prompt and the same last reply, a rewritten
 *    history goes on with the first.
 *
 * The next state of a reply is what the continuing request added after it:
 * the user's next message or the tool's results, the user's message without
 * the envelope an agent wraps it in (userWords). Pure: no I/O, no clock.
 */
import { createHash } from 'node:crypto';
import type { ConversationMessage } from '../../core/protocols/engineProtocol';
import type { TurnRecord } from '../turnLog';

export type SessionizedBy = 'header' | 'affinity' | 'prefix';

/** What the sessionizer reads of a served turn. */
export type ServedTurn = Pick<TurnRecord, 'id' | 'sessionId' | 'turnType' | 'sessionDone' | 'affinity' | 'messages'> & {
  response: Pick<TurnRecord['response'], 'text' | 'toolCalls'>;
};

export type Placement =
  /** A side turn (X-Turn-Type: side, or an agent's helper run in an affinity session): served, never part of the conversation. */
  | { kind: 'side'; session: string }
  | {
      kind: 'turn';
      /** The session's name: `header:<id>`, `affinity:<id>` or `conversation-<n>` (`#<k>` when a done session's id comes back). */
      session: string;
      by: SessionizedBy;
      /** This request's own place in its session (0 = it opened the session). */
      index: number;
      /** The session's earlier reply this request answers, and what it added after it. */
      previous?: { turnId: string; nextState: ConversationMessage[] };
      /** The reply this request forked from (a prefix session only), whose next state was already given. */
      forkOf?: string;
      /** X-Session-Done: the session ends after this turn's reply (which then has no next state). */
      done: boolean;
    };

type OpenSession = {
  name: string;
  by: SessionizedBy;
  turns: number;
  last: ServedTurn | undefined;
  /** The system prompt of the session's first request (an affinity session's turns share it). */
  system?: string | undefined;
};

/** A request's system prompt ('' when it has none). */
function systemPrompt(turn: Pick<ServedTurn, 'messages'>): string {
  const first = turn.messages[0];
  return first?.role === 'system' ? first.content : '';
}

/** A request's messages after its system prompt. */
function withoutSystem(messages: readonly ConversationMessage[]): readonly ConversationMessage[] {
  return messages[0]?.role === 'system' ? messages.slice(1) : messages;
}

/** How much of a reply a request must quote to be a helper reading its conversation. */
const QUOTED_REPLY_CHARS = 40;

/** OpenClaw's `:<n>` after the session id: how many times it compacted the session's history. */
const COMPACTION_COUNT = /:\d+$/u;

/** One message as it is compared: role, text and the calls it made (their ids are the client's to rewrite). */
function canonical(message: ConversationMessage): string {
  const calls = 'toolCalls' in message ? message.toolCalls.map((c) => [c.name, c.arguments]) : [];
  return JSON.stringify([message.role, message.content, calls]);
}

/** The hash of every prefix of a conversation: prefixHashes(m)[k] names m[0..k]. */
function prefixHashes(messages: readonly ConversationMessage[]): string[] {
  const out: string[] = [];
  let hash = '';
  for (const message of messages) {
    hash = createHash('sha256').update(hash).update(canonical(message)).digest('hex');
    out.push(hash);
  }
  return out;
}

/** The reply as the client sends it back on its next request. */
export function replyMessage(turn: ServedTurn): ConversationMessage {
  const calls = turn.response.toolCalls ?? [];
  return calls.length > 0 ? { role: 'assistant', content: turn.response.text, toolCalls: calls } : { role: 'assistant', content: turn.response.text };
}

/** OpenClaw's affinity key for a turn, if it sent one: the session id, without OpenClaw's compaction count. */
export function affinityKey(turn: Pick<ServedTurn, 'affinity'>): string | undefined {
  const a = turn.affinity;
  const value = [a?.sessionId, a?.sessionAffinity, a?.clientRequestId].find((v) => v !== undefined && v !== '');
  if (value === undefined) return undefined;
  const key = value.replace(COMPACTION_COUNT, '');
  return key === '' ? value : key;
}

/**
 * OpenClaw stamps every user message with the time it was sent, in the
 * agent's time zone (`[Sat 2026-12-05 09:55 UTC] `, or `GMT+1`, `CST`…).
 */
const OPENCLAW_TIMESTAMP = /^\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})?(?: [\w:+\-/]{1,40})?\] /u;
/** And appends its runtime line (agent, session, host, model) to a session's first message. */
const OPENCLAW_RUNTIME = /\n\nRuntime: agent=[^\n]*$/u;

/**
 * What the user said in a message an agent wrapped: without OpenClaw's
 * timestamp and runtime line. The judge reads the user's words (the rule
 * PRM knows a complaint by how it starts), not the client's envelope.
 */
export function userWords(content: string): string {
  return content.replace(OPENCLAW_TIMESTAMP, '').replace(OPENCLAW_RUNTIME, '');
}

/** A next state's messages with each user message reduced to the user's words. */
export function inUserWords(messages: ConversationMessage[]): ConversationMessage[] {
  return messages.map((m) => (m.role === 'user' ? { ...m, content: userWords(m.content) } : m));
}

/**
 * What `next` added after `previous`'s reply: when it carries `previous`'s
 * conversation and reply, the messages after them; otherwise (the client
 * trimmed or compacted its history) the messages after its last assistant
 * turn. User messages are given as the user's words (userWords).
 */
export function nextStateOf(previous: ServedTurn, next: Pick<ServedTurn, 'messages'>): ConversationMessage[] {
  const before = [...previous.messages, replyMessage(previous)];
  const prefix = prefixHashes(before).at(-1);
  if (next.messages.length > before.length && prefixHashes(next.messages.slice(0, before.length)).at(-1) === prefix) {
    return inUserWords(next.messages.slice(before.length));
  }
  const lastAssistant = next.messages.map((m) => m.role).lastIndexOf('assistant');
  return inUserWords(next.messages.slice(lastAssistant + 1));
}

export class Sessionizer {
  /** Sessions named by a header, by their key (`header:<id>`, `affinity:<id>`). */
  private readonly keyed = new Map<string, OpenSession>();
  /** How many times a key's session was done: the next one with that key is `#<n+1>`. */
  private readonly generations = new Map<string, number>();
  /** Each reply's conversation end (messages + reply) in the open prefix sessions, hashed → the turn and its session. */
  private readonly ends = new Map<string, { turn: ServedTurn; session: OpenSession }>();
  private conversations = 0;

  /** Places a served turn in its session (turns in the order the gateway recorded them). */
  add(turn: ServedTurn): Placement {
    if (turn.sessionId !== null) {
      if (turn.turnType === 'side') return { kind: 'side', session: this.keyedSession(`header:${turn.sessionId}`, 'header').name };
      return this.place(turn, this.keyedSession(`header:${turn.sessionId}`, 'header'));
    }
    const affinity = affinityKey(turn);
    if (affinity !== undefined) {
      const session = this.keyedSession(`affinity:${affinity}`, 'affinity');
      // One of OpenClaw's helper runs (compaction's summarizer, the memory flush): not the user's conversation.
      if (session.turns > 0 && systemPrompt(turn) !== session.system) return { kind: 'side', session: session.name };
      return this.place(turn, session);
    }
    return this.placeByPrefix(turn);
  }

  private keyedSession(key: string, by: SessionizedBy): OpenSession {
    let session = this.keyed.get(key);
    if (!session) {
      const generation = this.generations.get(key) ?? 0;
      session = { name: generation === 0 ? key : `${key}#${generation + 1}`, by, turns: 0, last: undefined };
      this.keyed.set(key, session);
    }
    return session;
  }

  private place(turn: ServedTurn, session: OpenSession, forkOf?: string): Placement {
    // A session's last reply has no next state yet: this request gives it one.
    const previous = session.last;
    const link = previous ? { turnId: previous.id, nextState: nextStateOf(previous, turn) } : undefined;
    const index = session.turns++;
    if (index === 0) session.system = systemPrompt(turn);
    session.last = turn;
    if (session.by === 'prefix') this.ends.set(prefixHashes([...turn.messages, replyMessage(turn)]).at(-1)!, { turn, session });
    if (turn.sessionDone) this.end(session);
    return {
      kind: 'turn',
      session: session.name,
      by: session.by,
      index,
      ...(link ? { previous: link } : {}),
      ...(forkOf !== undefined ? { forkOf } : {}),
      done: turn.sessionDone,
    };
  }

  /**
   * Ends a session (journaled after a quiet spell, or live mode stopping): a
   * later turn with its key, or continuing its conversation, opens a new one.
   */
  close(name: string): void {
    for (const [key, session] of this.keyed) if (session.name === name) this.end(session, key);
    // Its conversation ends are forgotten (memory stays bounded by the open sessions): picked up again, it is a new session.
    for (const [hash, end] of this.ends) if (end.session.name === name) this.ends.delete(hash);
  }

  private end(session: OpenSession, key = [...this.keyed].find(([, s]) => s === session)?.[0]): void {
    if (key === undefined) return;
    this.keyed.delete(key);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
  }

  /** The longest earlier conversation end this request's messages start with. */
  private placeByPrefix(turn: ServedTurn): Placement {
    const hashes = prefixHashes(turn.messages);
    // An end must be followed by at least one new message (the next state).
    for (let length = turn.messages.length - 1; length >= 2; length--) {
      const found = this.ends.get(hashes[length - 1]!);
      if (!found) continue;
      if (found.session.last === found.turn) return this.place(turn, found.session);
      // The reply was answered already (or the conversation went on past it): a fork.
      return this.place(turn, this.newConversation(), found.turn.id);
    }
    const rewritten = this.rewrittenContinuationOf(turn);
    if (rewritten !== undefined) return this.place(turn, rewritten);
    const helped = this.helperRunOf(turn);
    if (helped !== undefined) return { kind: 'side', session: helped.name };
    return this.place(turn, this.newConversation());
  }

  /**
   * The open prefix conversation a request goes on with after its client
   * rewrote the history (OpenClaw's compaction puts a summary where the early
   * turns were): the same system prompt, and the conversation's last reply as
   * the request's last assistant message — a reply long enough
   * (QUOTED_REPLY_CHARS) not to be any conversation's "ok".
   */
  private rewrittenContinuationOf(turn: ServedTurn): OpenSession | undefined {
    const at = turn.messages.map((m) => m.role).lastIndexOf('assistant');
    // The assistant message must be followed by what the request adds (the next state).
    if (at < 0 || at === turn.messages.length - 1) return undefined;
    const lastAssistant = turn.messages[at]!;
    for (const { turn: end, session } of this.ends.values()) {
      if (session.last !== end || systemPrompt(turn) !== session.system) continue;
      const reply = replyMessage(end);
      if (reply.content.trim().length >= QUOTED_REPLY_CHARS && canonical(reply) === canonical(lastAssistant)) return session;
    }
    return undefined;
  }

  /**
   * The open prefix conversation a request that continues none is a helper run
   * of: it carries that conversation's messages under a system prompt of its
   * own, or quotes the conversation's last reply (at least QUOTED_REPLY_CHARS
   * of it, so a short common reply like "ok" never links two conversations).
   */
  private helperRunOf(turn: ServedTurn): OpenSession | undefined {
    const body = withoutSystem(turn.messages);
    const bodyHashes = prefixHashes(body);
    const userText = turn.messages.flatMap((m) => (m.role === 'user' ? [m.content] : []));
    const open = new Set([...this.ends.values()].map((end) => end.session));
    for (const session of open) {
      const last = session.last;
      if (last === undefined) continue;
      const lastBody = withoutSystem(last.messages);
      const carries =
        lastBody.length > 0 &&
        systemPrompt(turn) !== session.system &&
        body.length >= lastBody.length &&
        bodyHashes[lastBody.length - 1] === prefixHashes(lastBody).at(-1);
      const reply = last.response.text.trim();
      const quotes = reply.length >= QUOTED_REPLY_CHARS && userText.some((text) => text.includes(reply));
      if (carries || quotes) return session;
    }
    return undefined;
  }

  private newConversation(): OpenSession {
    this.conversations += 1;
    return { name: `conversation-${this.conversations}`, by: 'prefix', turns: 0, last: undefined };
  }
}
