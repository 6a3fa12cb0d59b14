// Samples the pinned probe set on the probe engine — a separate engine
// process, never the serving one (docs/design.md, invariant 2). Each problem is asked with
// the student's own first message (no style hint: never coach what you
// measure) and a max_tokens large enough for a complete reply.
import { EngineError, type AdapterRef, type EngineClient, type GeneratedTokens, type GenerateResult } from '../protocols/engineProtocol';
import { passCriterion, type ReplyCriterion } from '../preference/replyCriterion';
import type { Sampling } from '../recipe/recipeSchema';
import type { Task } from '../tasks/task';
import type { ProbeReply } from './probeMetrics';

/** Both sides' probe replies in one round, on the same problems and seeds. */
export type RoundReplies = { candidate: ProbeReply[]; serving: ProbeReply[] };

/** What the gate needs from a probe engine: a round's replies of the candidate and of what serves, on one seed. */
export interface ProbeSampler {
  sampleRound(candidate: AdapterRef, serving: AdapterRef | null, seed: number): Promise<RoundReplies>;
}

/** The seed of problem i in a round: distinct per problem, identical for both sides of the pair. */
export const problemSeed = (roundSeed: number, i: number): number => (roundSeed + i * 7919) % 2_147_483_647;

export class EngineProbeSampler implements ProbeSampler {
  /** `criterion` judges the replies: a reply is stopped once its verdict is settled (ReplyCriterion.settledSoFar). */
  constructor(
    private readonly engine: EngineClient,
    private readonly problems: readonly Task[],
    private readonly sampling: Sampling,
    private readonly criterion: Pick<ReplyCriterion, 'settledSoFar'> = passCriterion,
  ) {
    if (problems.length === 0) throw new Error('the probe set is empty');
  }

  /**
   * Both sides at the same time on the one probe engine: the candidate's requests are
   * sent, then the serving version is made current and its requests are sent while the
   * candidate's still run. The engine protocol keeps each request on the version current
   * when it arrived (vLLM and SGLang name the LoRA per request and batch both), so the
   * two sides decode in one batch; an engine that swaps weights finishes the first
   * side before the swap, which is the sequential round.
   */
  async sampleRound(candidate: AdapterRef, serving: AdapterRef | null, seed: number): Promise<RoundReplies> {
    const first = await this.start(candidate, seed);
    // Handled here too: should the serving side fail to start, the candidate's replies are not awaited.
    first.replies.catch(() => undefined);
    const second = await this.start(serving, seed);
    const [c, s] = await Promise.all([first.replies, second.replies]);
    return { candidate: c, serving: s };
  }

  /** Makes `adapter` current and sends every problem; resolves once all are sent, with their replies to come. */
  private async start(adapter: AdapterRef | null, seed: number): Promise<{ replies: Promise<ProbeReply[]> }> {
    const loaded = await this.engine.setAdapter(adapter);
    const expected = adapter?.version ?? 'base';
    if (loaded !== expected) throw new Error(`probe engine loaded ${loaded}, expected ${expected}`);
    // All problems at once: the engine batches concurrent requests.
    const replies = Promise.all(this.problems.map((task, i) => this.reply(task, problemSeed(seed, i), expected)));
    return { replies };
  }

  /**
   * One problem's reply, decoded only as far as its verdict is open: once the text so
   * far settles it (a broken rule with the floor met), the engine is told to stop and
   * the reply is what it had decoded (`settled`). An engine that cannot stop finishes it.
   */
  private async reply(task: Task, seed: number, expected: string): Promise<ProbeReply> {
    const { settledSoFar } = this.criterion;
    const stop = new AbortController();
    let text = '';
    let tokens = 0;
    const onTokens = (piece: GeneratedTokens) => {
      text += piece.text;
      tokens += piece.tokenIds.length;
      if (!stop.signal.aborted && settledSoFar?.(text, task)) stop.abort();
    };
    const request = {
      messages: [{ role: 'user' as const, content: task.firstMessage }],
      sampling: { temperature: this.sampling.temperature, topP: this.sampling.top_p, topK: this.sampling.top_k, maxTokens: this.sampling.max_tokens },
      seed,
      logprobsTopK: 0,
    };
    const asked = { taskId: task.id, gold: task.answer, ...(task.mentions ? { mentions: task.mentions } : {}), seed };
    let result: GenerateResult;
    try {
      // A criterion that never settles early asks for the reply whole (no stream to watch).
      result = settledSoFar ? await this.engine.generate(request, onTokens, stop.signal) : await this.engine.generate(request);
    } catch (error) {
      if (stop.signal.aborted && error instanceof EngineError && error.code === 'stopped') {
        return { ...asked, text, finishReason: 'settled', completionTokens: tokens };
      }
      throw error;
    }
    // A stopped reply names no version; it was sent, as this one was, on the version just made current.
    if (result.version !== expected) throw new Error(`probe reply came from ${result.version}, expected ${expected}`);
    return { ...asked, text: result.text, finishReason: result.finishReason, completionTokens: result.completionTokens };
  }
}
