/**
 * Live mode's judging: every turn the gateway serves to an outside client is
 * placed in its conversation (sessionizer.ts); each assistant reply is judged
 * by what came next in that conversation (the user's next message or the
 * tool's results) with the recipe's PRM and hint judge; the judged turn
 * becomes a train sample exactly as in a run (runSession.ts's sampleOf); and
 * when a session ends — X-Session-Done, a quiet spell, or live mode stopping
 * — it is journaled like a run's session (`session-completed`, with its
 * transcript and samples files) and its samples go to the trainer feed, so
 * every candidate passes the same gate.
 *
 * A reply with no next state (a session's last) is not trained on: nothing
 * says how it was received. Work is done one piece at a time, in the order
 * the turns were served, off the gateway's response path.
 */
import { judgeReply } from '../../core/judge/criterion';
import { dispatchTurn } from '../../core/judge/trainDispatch';
import type { TurnJudge } from '../../core/judge/turnJudge';
import { sha256Hex } from '../../core/gate/verifyCandidate';
import { writeFileAtomic } from '../../core/journal/atomicFile';
import type { RunJournal } from '../../core/journal/runJournal';
import { observeSession } from '../../core/metrics/curve';
import type { ChatMessage, ConversationMessage } from '../../core/protocols/engineProtocol';
import type { TrainSample } from '../../core/protocols/trainSample';
import path from 'node:path';
import { runPaths } from '../runFolder';
import { sampleOf, type JudgedSample, type SessionContext, type TranscriptTurn } from '../runSession';
import { completedSessionEvents } from '../sessionFiles';
import type { TurnLog, TurnRecord } from '../turnLog';
import { excludeSession } from './excludeSession';
import { sessionIdOf } from './sessionExclusion';
import { Sessionizer, inUserWords, type SessionizedBy } from './sessionizer';

export type LiveSessionsOptions = {
  runDir: string;
  runId: string;
  journal: RunJournal;
  judge: TurnJudge;
  /** The serving engine's prompt count and context (a sample the model cannot hold never reaches a batch). */
  sampling: Pick<SessionContext, 'countPromptTokens' | 'maxPositions'>;
  /** Where a journaled session's samples go (the run's trainer feed). */
  feed: { add(samples: readonly TrainSample[]): void };
  /** The clock a quiet spell is measured on (ms). */
  now?: () => number;
  onLog?: (line: string) => void;
  /** Told whenever an open conversation changes (a turn served, a reply judged, a session journaled): the desktop redraws. */
  onChange?: () => void;
  /** A failure live mode cannot go on after (the journal failed): it must stop. */
  onFatal: (error: Error) => void;
};

/** What the desktop shows of a conversation not yet journaled. */
export type OpenConversation = {
  name: string;
  by: SessionizedBy;
  turns: number;
  judged: number;
  toTrain: number;
  /** Side turns served for it (an agent's helper runs: compaction, memory flush): never part of it, never trained. */
  helperTurns: number;
  lastServedAt: number;
  /** The reason a person gave to exclude it once journaled, or null. */
  exclusion: string | null;
};

type OpenSession = {
  name: string;
  by: SessionizedBy;
  turns: TranscriptTurn[];
  /** Each turn's served record, by completion id, and its place in `turns`. */
  records: Map<string, { record: TurnRecord; index: number }>;
  samples: JudgedSample[];
  judgeSeconds: number;
  sampleSeconds: number;
  helperTurns: number;
  lastServedAt: number;
  /** A person's reason to keep it out of training, given while it was open: excluded the moment it is journaled. */
  exclusion: string | null;
};

/** What the judge reads of a next state: the user's words, a tool's result marked as such. */
export function nextStateText(messages: readonly ConversationMessage[]): string {
  return messages
    .map((m) => (m.role === 'tool' ? `[tool result] ${m.content}` : m.content))
    .filter((text) => text.trim() !== '')
    .join('\n\n');
}

/**
 * What the judge reads of a reply: its text, then each tool it called, marked
 * as such (`[tool call] read({"path":…})`). A bare call has no text, and the
 * judge must see what the reply did to judge it by the tool's result (as
 * OpenClaw-RL's PRM reads the reply rendered with its calls).
 */
export function replyText(response: Pick<TurnRecord['response'], 'text' | 'toolCalls'>): string {
  const calls = (response.toolCalls ?? []).map((call) => `[tool call] ${call.name}(${call.arguments})`);
  return [response.text, ...calls].filter((text) => text.trim() !== '').join('\n\n');
}

/** Why a served turn cannot be a train sample whatever its judgment, or undefined when it can. */
export function untrainableReason(record: Pick<TurnRecord, 'toolUse' | 'messages'>): string | undefined {
  const choice = record.toolUse?.choice;
  // A forced call ('required' or a named function) was sampled under a constraint
  // the engine imposed, not from the model's own distribution: its log-probs are
  // not the policy's, so the policy-gradient ratio and the OPD term would be wrong.
  if (choice !== undefined && choice !== 'auto' && choice !== 'none') return 'a forced tool call: its log-probs are not the policy’s own';
  if (record.messages.some((m) => m.role === 'tool' || 'toolCalls' in m)) return 'the conversation holds tool turns, which a train sample cannot carry';
  return undefined;
}

export class LiveSessions {
  private readonly sessionizer = new Sessionizer();
  private readonly open = new Map<string, OpenSession>();
  private queue: Promise<void> = Promise.resolve();
  private failed = false;
  private readonly now: () => number;

  constructor(private readonly options: LiveSessionsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Follows the gateway's turn log; returns the function that stops following. */
  attach(turnLog: TurnLog): () => void {
    return turnLog.onAppend((turn) => this.served(turn));
  }

  /** Names of the sessions not yet journaled. */
  openSessions(): string[] {
    return [...this.open.keys()];
  }

  /** The conversations not yet journaled, oldest first. */
  openConversations(): OpenConversation[] {
    return [...this.open.values()].map((s) => ({
      name: s.name,
      by: s.by,
      turns: s.turns.length,
      judged: s.turns.filter((t) => t.judgment !== null).length,
      toTrain: s.samples.length,
      helperTurns: s.helperTurns,
      lastServedAt: s.lastServedAt,
      exclusion: s.exclusion,
    }));
  }

  /**
   * Keeps an open conversation out of training: it goes on, and the moment
   * it is journaled a `session-excluded` event follows its
   * `session-completed`, before the trainer feed is given its turns (so no
   * step can use them). False when no conversation of that name is open.
   */
  excludeWhenJournaled(name: string, reason: string): boolean {
    const session = this.open.get(name);
    if (!session) return false;
    session.exclusion = reason;
    this.options.onChange?.();
    return true;
  }

  /** Places a served turn; its judging and journaling are queued (the client's response does not wait for them). */
  served(record: TurnRecord): void {
    const placement = this.sessionizer.add(record);
    if (placement.kind === 'side') {
      const owner = this.open.get(placement.session);
      if (owner) {
        owner.helperTurns += 1;
        this.options.onChange?.();
      }
      return;
    }
    let session = this.open.get(placement.session);
    if (!session) {
      session = {
        name: placement.session,
        by: placement.by,
        turns: [],
        records: new Map(),
        samples: [],
        judgeSeconds: 0,
        sampleSeconds: 0,
        helperTurns: 0,
        lastServedAt: 0,
        exclusion: null,
      };
      this.open.set(placement.session, session);
    }
    session.lastServedAt = this.now();
    const index = session.turns.length;
    session.turns.push({
      turn: index,
      // What this request added after the last reply, in the user's words (the system prompt and an agent's envelope are the client's).
      user: nextStateText(
        inUserWords(record.messages.slice(record.messages.map((m) => m.role).lastIndexOf('assistant') + 1).filter((m) => m.role !== 'system')),
      ),
      reply: record.response.text,
      ...(record.response.toolCalls && record.response.toolCalls.length > 0 ? { toolCalls: record.response.toolCalls } : {}),
      version: record.version,
      finishReason: record.response.finishReason,
      completionTokens: record.response.completionTokens,
      nextState: null,
      verdict: null,
      judgment: null,
      training: null,
    });
    session.records.set(record.id, { record, index });
    const { previous } = placement;
    const target = session;
    if (previous) this.enqueue(() => this.judge(target, previous.turnId, previous.nextState));
    if (placement.done) this.close(session.name);
    this.options.onChange?.();
  }

  /** Journals every session no turn was served to for `idleMs` (their last replies stay untrained). */
  closeIdle(idleMs: number): void {
    const now = this.now();
    for (const session of this.open.values()) if (now - session.lastServedAt >= idleMs) this.close(session.name);
  }

  /** Journals every open session; resolves once all queued work is done. */
  async closeAll(): Promise<void> {
    for (const name of [...this.open.keys()]) this.close(name);
    await this.idle();
  }

  /** Resolves once every queued judgment and journaling is done. */
  idle(): Promise<void> {
    return this.queue;
  }

  private close(name: string): void {
    const session = this.open.get(name);
    if (!session) return;
    this.open.delete(name);
    this.sessionizer.close(name);
    this.enqueue(() => this.journalSession(session));
  }

  private enqueue(work: () => Promise<void>): void {
    this.queue = this.queue.then(async () => {
      if (this.failed) return;
      try {
        await work();
      } catch (error) {
        this.failed = true;
        this.options.onFatal(error as Error);
      }
      this.options.onChange?.();
    });
  }

  private async judge(session: OpenSession, turnId: string, next: ConversationMessage[]): Promise<void> {
    const served = session.records.get(turnId);
    if (!served) throw new Error(`live session ${session.name} has no turn ${turnId}`);
    const { record, index } = served;
    const entry = session.turns[index]!;
    const nextState = nextStateText(next);
    entry.nextState = nextState;
    if (nextState === '') {
      entry.skipped = 'the next request added nothing after the reply';
      return;
    }
    const started = performance.now();
    const judgment = await this.options.judge.judgeTurn({ assistantOutput: replyText(record.response), nextState });
    session.judgeSeconds += (performance.now() - started) / 1000;
    const training = dispatchTurn(judgment);
    entry.judgment = { score: judgment.score, votes: judgment.votes, hint: judgment.hint, hintAccepted: judgment.hintAccepted, backends: judgment.backends };
    entry.training = training.mode;
    if (training.mode === 'none') return;
    const refused = untrainableReason(record);
    if (refused !== undefined) {
      entry.skipped = refused;
      return;
    }
    const sampleStarted = performance.now();
    // The sample's session id is set when the session is journaled and gets its number.
    const built = await sampleOf(this.options.sampling, session.name, index, record.messages as ChatMessage[], record, training);
    session.sampleSeconds += (performance.now() - sampleStarted) / 1000;
    if (typeof built === 'string') entry.skipped = built;
    else session.samples.push({ version: record.version, turn: index, sample: built });
  }

  private async journalSession(session: OpenSession): Promise<void> {
    const { runDir, journal, runId } = this.options;
    for (const entry of session.turns) {
      if (entry.nextState === null && entry.skipped === undefined) entry.skipped = 'no next state: the session ended after this reply';
    }
    const number = completedSessionEvents(journal.events).length;
    const sessionId = sessionIdOf(runId, number);
    const samples = session.samples.map((s) => ({ ...s, sample: { ...s.sample, sessionId } }));
    const first = session.turns[0]!;
    const firstJudged = session.turns.find((t) => t.judgment !== null);
    // No gold answer here: the style markers of the first reply, and "accepted" = the PRM's +1 on the first judged reply.
    const style = judgeReply(first.reply, 0);
    const accepted = firstJudged?.judgment?.score === 1;
    const observation = observeSession({
      session: number,
      firstReply: first.reply,
      verdict: { ...style, accepted, failures: style.failures.filter((f) => f !== 'no-gold-answer') },
      turns: session.turns.length,
    });
    const judged = session.turns.filter((t) => t.judgment !== null);
    const paths = runPaths(runDir);
    const transcript = paths.transcript(number);
    const samplesFile = paths.samples(number);
    const samplesText = JSON.stringify(samples);
    const record = {
      session: number,
      sessionId,
      live: { name: session.name, recognisedBy: session.by },
      turns: session.turns,
      versions: session.turns.map((t) => t.version),
    };
    await writeFileAtomic(path.join(runDir, transcript), JSON.stringify(record, null, 1) + '\n');
    await writeFileAtomic(path.join(runDir, samplesFile), samplesText);
    await journal.append({
      type: 'session-completed',
      session: number,
      taskId: `live:${session.name}`,
      accepted,
      turns: session.turns.length,
      versions: record.versions,
      transcript,
      samples: { file: samplesFile, sha256: sha256Hex(Buffer.from(samplesText, 'utf8')), count: samples.length },
      curve: {
        ...observation,
        judged_turns: judged.length,
        trained_turns: samples.length,
        prm_mean: judged.length === 0 ? 0 : judged.reduce((s, t) => s + (t.judgment?.score ?? 0), 0) / judged.length,
      },
      timing: { waitSeconds: 0, generationSeconds: 0, studentSeconds: 0, judgeSeconds: session.judgeSeconds, sampleSeconds: session.sampleSeconds },
    });
    this.options.onLog?.(
      `live: session ${number} (${session.name}, by ${session.by}): ${session.turns.length} turns, ${judged.length} judged, ${samples.length} to train`,
    );
    if (session.exclusion !== null) {
      await excludeSession(journal, number, session.exclusion);
      this.options.onLog?.(`live: session ${number} (${session.name}) excluded from training, as asked while it was open`);
    }
    this.options.feed.add(samples.map((s) => s.sample));
  }
}
