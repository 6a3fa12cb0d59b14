// Samples the pinned probe set on the probe engine — a separate engine
// process, never the serving one (docs/design.md, invariant 2). Each problem is asked with
// the student's own first message (no style hint: never coach what you
// measure) and a max_tokens large enough for a complete reply.
import type { AdapterRef, EngineClient } from '../protocols/engineProtocol';
import type { Sampling } from '../recipe/recipeSchema';
import type { Task } from '../tasks/task';
import type { ProbeReply } from './probeMetrics';

/** What the gate needs from a probe engine: the probe replies of one adapter on one seed. */
export interface ProbeSampler {
  sample(adapter: AdapterRef | null, seed: number): Promise<ProbeReply[]>;
}

/** The seed of problem i in a round: distinct per problem, identical for both sides of the pair. */
export const problemSeed = (roundSeed: number, i: number): number => (roundSeed + i * 7919) % 2_147_483_647;

export class EngineProbeSampler implements ProbeSampler {
  constructor(
    private readonly engine: EngineClient,
    private readonly problems: readonly Task[],
    private readonly sampling: Sampling,
  ) {
    if (problems.length === 0) throw new Error('the probe set is empty');
  }

  async sample(adapter: AdapterRef | null, seed: number): Promise<ProbeReply[]> {
    const loaded = await this.engine.setAdapter(adapter);
    const expected = adapter?.version ?? 'base';
    if (loaded !== expected) throw new Error(`probe engine loaded ${loaded}, expected ${expected}`);
    // All problems at once: the engine batches concurrent requests.
    const replies = await Promise.all(
      this.problems.map(async (task, i): Promise<ProbeReply> => {
        const result = await this.engine.generate({
          messages: [{ role: 'user', content: task.firstMessage }],
          sampling: {
            temperature: this.sampling.temperature,
            topP: this.sampling.top_p,
            topK: this.sampling.top_k,
            maxTokens: this.sampling.max_tokens,
          },
          seed: problemSeed(seed, i),
          logprobsTopK: 0,
        });
        if (result.version !== expected) throw new Error(`probe reply came from ${result.version}, expected ${expected}`);
        return {
          taskId: task.id,
          gold: task.answer,
          ...(task.mentions ? { mentions: task.mentions } : {}),
          seed: problemSeed(seed, i),
          text: result.text,
          finishReason: result.finishReason,
          completionTokens: result.completionTokens,
        };
      }),
    );
    return replies;
  }
}
