/**
 * From homework tasks to training samples, the way a session produces them
 * the student's first message → the engine's first reply (with
 * old log-probs and top-K) → the pass criterion → the scripted student's
 * reaction (complaint with hindsight, or the save request) → the turn judge
 * (PRM + hint) on (reply, next state) → the dispatch table → a TokenSample.
 *
 * Used by bench:learn (and the real-model trainer test); the run's session
 * loop does the same with whole sessions.
 */
import { judgeReply, type Verdict } from '../../src/core/judge/criterion';
import { dispatchTurn, type TurnTraining } from '../../src/core/judge/trainDispatch';
import { appendHintToLastUser } from '../../src/core/judge/teacherInput';
import type { TurnJudge, TurnJudgment } from '../../src/core/judge/turnJudge';
import type { EngineClient, GenerateResult, SamplingParams } from '../../src/core/protocols/engineProtocol';
import { createRng } from '../../src/core/tasks/rng';
import { complaintFor, saveRequest, violationKinds } from '../../src/core/tasks/student';
import type { Task } from '../../src/core/tasks/task';
import type { Tokenizer } from '../../src/backends/embedded/engine/tokenizer';
import type { TokenSample } from '../../src/backends/embedded/trainer/tokenSample';

export interface RolloutDeps {
  /** Generates the replies (and, for on-policy steps, loads each new candidate). */
  readonly engine: Pick<EngineClient, 'generate' | 'setAdapter'>;
  readonly tokenizer: Tokenizer;
  readonly judge: TurnJudge;
  readonly sampling: SamplingParams;
  /** K of the OPD term (the engine's logprobsTopK). */
  readonly topK: number;
}

export interface JudgedFirstReply {
  readonly task: Task;
  readonly seed: number;
  readonly reply: GenerateResult;
  readonly verdict: Verdict;
  readonly nextState: string;
  readonly judgment: TurnJudgment;
  readonly training: TurnTraining;
  /** null when the dispatch says the turn does not train. */
  readonly sample: TokenSample | null;
}

/** The scripted student's next message after a first reply (docs/internals.md wording contract). */
export function studentReaction(task: Task, verdict: Verdict, seed: number): string {
  if (verdict.accepted) return saveRequest(task);
  return complaintFor(violationKinds(verdict), createRng(seed)).text;
}

export function trainSampleOf(tokenizer: Tokenizer, task: Task, turn: number, reply: GenerateResult, training: TurnTraining): TokenSample | null {
  if (training.mode === 'none') return null;
  // Only the embedded engine forces tokens; another engine's reply has none forced.
  const forced = reply.forced ?? reply.tokenIds.map(() => false);
  if (reply.tokenIds.length === 0 || forced.every(Boolean)) return null;
  const messages = [{ role: 'user' as const, content: task.firstMessage }];
  return {
    sessionId: task.id,
    turn,
    promptIds: tokenizer.encodeChat(messages),
    responseIds: reply.tokenIds,
    forced,
    logprobs: reply.logprobs,
    topIds: reply.topIds,
    topLogprobs: reply.topLogprobs,
    reward: training.reward,
    ...(training.hint !== null ? { hintedPromptIds: tokenizer.encodeChat(appendHintToLastUser(messages, training.hint)) } : {}),
  };
}

/** First replies to `tasks` (seed i for task i), judged; requests go to the engine together so it can batch them. */
export async function judgedFirstReplies(deps: RolloutDeps, tasks: readonly Task[], seeds: readonly number[]): Promise<JudgedFirstReply[]> {
  if (seeds.length !== tasks.length) throw new Error('one seed per task');
  const replies = await Promise.all(
    tasks.map((task, i) =>
      deps.engine.generate({
        messages: [{ role: 'user', content: task.firstMessage }],
        sampling: deps.sampling,
        seed: seeds[i] as number,
        logprobsTopK: deps.topK,
      }),
    ),
  );
  const out: JudgedFirstReply[] = [];
  for (const [i, task] of tasks.entries()) {
    const reply = replies[i] as GenerateResult;
    const seed = seeds[i] as number;
    const verdict = judgeReply(reply.text, task.answer);
    const nextState = studentReaction(task, verdict, seed);
    const judgment = await deps.judge.judgeTurn({ assistantOutput: reply.text, nextState });
    const training = dispatchTurn(judgment);
    out.push({ task, seed, reply, verdict, nextState, judgment, training, sample: trainSampleOf(deps.tokenizer, task, 0, reply, training) });
  }
  return out;
}
