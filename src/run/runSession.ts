// One session, as a straight line (docs/design.md, The data flow of one session): task → student
// message → gateway → serving engine → reply (tokens, log-probs, top-K,
// version) → the student's reaction → the turn judged from that next state
// → a training sample when the dispatch says it trains. At most
// `max_turns` replies; only the first reply is scored.
import type { Verdict } from '../core/judge/criterion';
import { replyCriterion } from '../core/preference/replyCriterion';
import { dispatchTurn, type TurnTraining } from '../core/judge/trainDispatch';
import { appendHintToLastUser } from '../core/judge/teacherInput';
import type { TurnJudge, TurnJudgment } from '../core/judge/turnJudge';
import { observeSession, type SessionObservation } from '../core/metrics/curve';
import type { ToolCall } from '../core/protocols/engineProtocol';
import type { StudentFactory } from '../core/protocols/studentProtocol';
import { trainSampleSchema, type TrainSample } from '../core/protocols/trainSample';
import type { Recipe } from '../core/recipe/recipeSchema';
import type { TurnRecord } from './turnLog';
import { runPartSeed } from '../core/tasks/rng';
import type { Task } from '../core/tasks/task';
import { sessionIdOf } from './live/sessionExclusion';
import { chatThroughGateway, type ChatMessage, type GatewayEndpoint } from './gatewayChat';

export type SessionContext = {
  recipe: Recipe;
  gateway: GatewayEndpoint;
  /** The gateway's record of a completed turn (tokens, log-probs, version), by completion id. */
  turnRecord: (completionId: string) => TurnRecord | undefined;
  judge: TurnJudge;
  students: StudentFactory;
  /** The prompt's length under the serving engine's chat template (the engine protocol's countPromptTokens). */
  countPromptTokens: (messages: readonly ChatMessage[]) => Promise<number>;
  maxPositions: number;
};

export type TranscriptTurn = {
  turn: number;
  user: string;
  reply: string;
  /** The tools the reply called (live mode: an outside agent's tools), absent when it called none. */
  toolCalls?: ToolCall[];
  version: string;
  finishReason: string;
  completionTokens: number;
  /** The student's reaction: the next state the turn is judged from (absent for the session's last reply if the budget ran out). */
  nextState: string | null;
  verdict: Verdict | null;
  judgment: Pick<TurnJudgment, 'score' | 'votes' | 'hint' | 'hintAccepted' | 'backends'> | null;
  training: TurnTraining['mode'] | null;
  /** Why a turn that should train produced no sample (too long, all forced, …). */
  skipped?: string;
};

/** A judged turn as the run keeps it: the trainer's sample and the version that produced the reply. */
export type JudgedSample = { version: string; turn: number; sample: TrainSample };

export type SessionResult = {
  session: number;
  sessionId: string;
  task: Pick<Task, 'id' | 'index' | 'question' | 'answer'>;
  turns: TranscriptTurn[];
  firstVerdict: Verdict;
  observation: SessionObservation;
  samples: JudgedSample[];
  versions: string[];
  /** How the session ended: the student said it is done (HOMEWORK_DONE, the preference user's thanks), the turn budget ran out, or the context is full. */
  endedBy: 'done' | 'max-turns' | 'context-full';
  /** Where the session's wall time went (seconds): the replies, the student's reactions, the judge, the samples. */
  timing: SessionTiming;
};

export type SessionTiming = { generationSeconds: number; studentSeconds: number; judgeSeconds: number; sampleSeconds: number };

/** Adds the seconds `work` takes to `timing[key]`. */
async function timed<T>(timing: SessionTiming, key: keyof SessionTiming, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    timing[key] += (performance.now() - started) / 1000;
  }
}

/** A reply needs at least this much room; less and the session ends (the context is full). */
const MIN_REPLY_TOKENS = 32;

export async function runSession(ctx: SessionContext, task: Task, session: number, runSeed: number, runId: string): Promise<SessionResult> {
  const seed = runPartSeed(runSeed, `session-${session}`);
  const sessionId = sessionIdOf(runId, session);
  const student = ctx.students.forSession(task, seed);
  const criterion = replyCriterion(ctx.recipe.preference);
  const maxTurns = ctx.recipe.session.max_turns;
  const messages: ChatMessage[] = [{ role: 'user', content: await student.firstMessage() }];
  const turns: TranscriptTurn[] = [];
  const samples: JudgedSample[] = [];
  let done = false;
  let endedBy: SessionResult['endedBy'] = 'max-turns';
  const timing: SessionTiming = { generationSeconds: 0, studentSeconds: 0, judgeSeconds: 0, sampleSeconds: 0 };

  for (let turn = 0; turn < maxTurns && !done; turn++) {
    const isLast = turn === maxTurns - 1;
    // Long rewrites fill the context; the reply gets the room that is left, and
    // when too little is left the session ends as a real chat would.
    const room = ctx.maxPositions - (await ctx.countPromptTokens(messages));
    if (room < MIN_REPLY_TOKENS) {
      endedBy = 'context-full';
      break;
    }
    const sampling = { ...ctx.recipe.policy.sampling, max_tokens: Math.min(ctx.recipe.policy.sampling.max_tokens, room) };
    const reply = await timed(timing, 'generationSeconds', () =>
      chatThroughGateway(ctx.gateway, {
        sessionId,
        sessionDone: isLast,
        messages,
        sampling,
        seed: runPartSeed(seed, `turn-${turn}`),
      }),
    );
    const record = ctx.turnRecord(reply.id);
    if (!record) throw new Error(`the gateway has no turn record for ${reply.id}`);
    if (record.version !== reply.version) throw new Error(`turn ${reply.id}: reply says ${reply.version}, the turn log ${record.version}`);

    // The next state: the student's reaction (none after the last allowed reply).
    const reaction = isLast
      ? null
      : await timed(timing, 'studentSeconds', () => student.react(reply.text, [...messages, { role: 'assistant', content: reply.text }]));
    const entry: TranscriptTurn = {
      turn,
      user: messages.at(-1)!.content,
      reply: reply.text,
      version: reply.version,
      finishReason: reply.finishReason,
      completionTokens: record.response.completionTokens,
      nextState: reaction?.message ?? null,
      verdict: reaction?.verdict ?? (turn === 0 ? criterion.judge(reply.text, task) : null),
      judgment: null,
      training: null,
    };
    if (reaction) {
      const judgment = await timed(timing, 'judgeSeconds', () => ctx.judge.judgeTurn({ assistantOutput: reply.text, nextState: reaction.message }));
      const training = dispatchTurn(judgment);
      entry.judgment = { score: judgment.score, votes: judgment.votes, hint: judgment.hint, hintAccepted: judgment.hintAccepted, backends: judgment.backends };
      entry.training = training.mode;
      if (training.mode !== 'none') {
        const built = await timed(timing, 'sampleSeconds', () => sampleOf(ctx, sessionId, turn, messages, record, training));
        if (typeof built === 'string') entry.skipped = built;
        else samples.push({ version: reply.version, turn, sample: built });
      }
      done = reaction.done;
      if (done) endedBy = 'done';
    }
    turns.push(entry);
    messages.push({ role: 'assistant', content: reply.text });
    if (reaction && !reaction.done) messages.push({ role: 'user', content: reaction.message });
  }

  const first = turns[0]!;
  const firstVerdict = first.verdict ?? criterion.judge(first.reply, task);
  return {
    session,
    sessionId,
    task: { id: task.id, index: task.index, question: task.question, answer: task.answer },
    turns,
    firstVerdict,
    observation: observeSession({ session, firstReply: first.reply, verdict: firstVerdict, turns: turns.length }),
    samples,
    versions: turns.map((t) => t.version),
    endedBy,
    timing,
  };
}

/**
 * The trainer's sample for a judged turn (src/core/protocols/trainSample.ts),
 * or why there is none. The conversation travels as messages; the trainer
 * tokenizes it with its own template. Lengths are the engine's own count, so a
 * sequence the model cannot hold never reaches a batch (it would refuse the
 * whole batch there).
 */
export async function sampleOf(
  ctx: Pick<SessionContext, 'countPromptTokens' | 'maxPositions'>,
  sessionId: string,
  turn: number,
  messages: readonly ChatMessage[],
  record: TurnRecord,
  training: Exclude<TurnTraining, { mode: 'none' }>,
): Promise<TrainSample | string> {
  const r = record.response;
  const hinted = training.hint === null ? 0 : await ctx.countPromptTokens(appendHintToLastUser(messages, training.hint));
  const longest = Math.max(r.promptTokens, hinted) + r.tokenIds.length;
  if (longest > ctx.maxPositions) return `sequence of ${longest} tokens exceeds the model's ${ctx.maxPositions} positions`;
  const candidate = {
    sessionId,
    turn,
    messages: messages.map((m) => ({ role: m.role, content: m.content })),
    ...(training.hint !== null ? { hint: training.hint } : {}),
    ...(r.promptIds !== undefined ? { promptIds: r.promptIds } : {}),
    responseIds: r.tokenIds,
    logprobs: r.logprobs,
    topIds: r.topIds,
    topLogprobs: r.topLogprobs,
    ...(r.forced !== undefined ? { forced: r.forced } : {}),
    reward: training.reward,
  };
  const parsed = trainSampleSchema.safeParse(candidate);
  if (!parsed.success) return `not trainable: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`;
  return parsed.data;
}
