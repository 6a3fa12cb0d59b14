// runOnPolicySteps when a batch leaves nothing to train: the engine is a test
// double that answers every task with a reply the student accepts, so no
// reply draws a hint and the OPD-only variant has no turn to learn from.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRuleHintJudge, createRulePrm } from '../../src/core/judge/ruleJudge';
import { composeTurnJudge } from '../../src/core/judge/turnJudge';
import type { EngineClient, GenerateRequest, GenerateResult } from '../../src/core/protocols/engineProtocol';
import { parseTaskSet, type Task } from '../../src/core/tasks/task';
import { Tokenizer } from '../../src/backends/embedded/engine/tokenizer';
import type { CandidateTrainer } from '../../src/backends/embedded/trainer/candidateTrainer';
import type { TokenSample } from '../../src/backends/embedded/trainer/tokenSample';
import { applyVariant, runOnPolicySteps, type SignalVariant } from './onPolicySteps';

const asset = (p: string) => JSON.parse(readFileSync(new URL(`../../assets/${p}`, import.meta.url), 'utf8'));
const tasks = parseTaskSet(asset('homework/homework.json'), 'homework.json').tasks.slice(0, 4);
const tokenizer = Tokenizer.fromJson(asset('models/policy/tokenizer.json'));

/** A plain reply that shows two steps and states the answer: accepted by the criterion. */
function acceptedReply(task: Task): string {
  const [a, b] = task.steps;
  return `First ${a?.expr} = ${a?.result}. Then ${b?.expr ?? `${a?.result} + 0`} = ${b?.result ?? a?.result}. So the answer is ${task.answer}.`;
}

function acceptingEngine(): Pick<EngineClient, 'generate' | 'setAdapter'> {
  return {
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const task = tasks.find((t) => t.firstMessage === request.messages[0]?.content) as Task;
      const text = acceptedReply(task);
      const ids = tokenizer.encode(text);
      return {
        tokenIds: ids,
        text,
        logprobs: ids.map(() => -0.1),
        topIds: ids.map((id) => [id]),
        topLogprobs: ids.map(() => [-0.1]),
        forced: ids.map(() => false),
        finishReason: 'stop',
        promptTokens: 10,
        completionTokens: ids.length,
        version: 'base',
        seed: request.seed ?? 0,
        timings: { promptMs: 0, decodeMs: 0 },
      };
    },
    setAdapter: async (adapter) => adapter?.version ?? 'base',
  };
}

const rollout = () => ({
  engine: acceptingEngine(),
  tokenizer,
  judge: composeTurnJudge(createRulePrm(), createRuleHintJudge()),
  sampling: { temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 256 },
  topK: 4,
});

function run(variant: SignalVariant, trained: number[]) {
  const trainer = {
    step: async () => {
      trained.push(1);
      throw new Error('stop here: the step was asked for');
    },
  } as unknown as CandidateTrainer;
  return runOnPolicySteps({
    rollout: rollout(),
    trainer,
    tasks,
    batch: 4,
    steps: 3,
    variant,
    seed: 1,
  });
}

describe('runOnPolicySteps', () => {
  it('ends without a step when no reply trains under the variant (OPD only, every reply accepted)', async () => {
    const trained: number[] = [];
    expect(await run('opd-only', trained)).toEqual([]);
    expect(trained).toEqual([]);
  });

  it('trains the same accepted replies when the variant keeps their reward (RL only)', async () => {
    const trained: number[] = [];
    await expect(run('rl-only', trained)).rejects.toThrow(/the step was asked for/);
    expect(trained).toEqual([1]);
  });

  it('trains each step on its batch and the newest turns before it, up to the window', async () => {
    const sizes: number[] = [];
    const trainer = {
      step: async (samples: readonly unknown[]) => {
        sizes.push(samples.length);
        const n = sizes.length;
        return { report: { step: n }, candidate: { version: `v${n}`, sha256: String(n).padStart(64, '0'), path: `/nowhere/${n}` } };
      },
    } as unknown as CandidateTrainer;
    const steps = await runOnPolicySteps({ rollout: rollout(), trainer, tasks, batch: 2, window: 5, steps: 4, variant: 'rl-only', seed: 1 });
    expect(sizes).toEqual([2, 4, 5, 5]);
    expect(steps.map((s) => s.samples)).toEqual([2, 4, 5, 5]);
  });
});

describe('signal variants (RL only / OPD only / reward-inverted)', () => {
  const sample: TokenSample = {
    sessionId: 's',
    turn: 0,
    promptIds: [1, 2],
    responseIds: [3],
    forced: [false],
    logprobs: [-1],
    topIds: [[3]],
    topLogprobs: [[-1]],
    reward: -1,
    hintedPromptIds: [1, 9, 2],
  };
  it('keeps, strips or flips exactly the parts the variant names', () => {
    expect(applyVariant(sample, 'both')).toBe(sample);
    expect(applyVariant(sample, 'rl-only')).not.toHaveProperty('hintedPromptIds');
    expect(applyVariant(sample, 'rl-only')?.reward).toBe(-1);
    expect(applyVariant(sample, 'opd-only')).toMatchObject({ reward: 0, hintedPromptIds: [1, 9, 2] });
    expect(applyVariant(sample, 'reward-inverted', 1)).toMatchObject({ reward: 1 });
    expect(applyVariant(sample, 'reward-inverted', 1)).not.toHaveProperty('hintedPromptIds');
    expect(applyVariant(sample, 'reward-inverted', 0)).toBeNull();
    expect(() => applyVariant(sample, 'reward-inverted')).toThrow(/markdown reward/);
    expect(applyVariant({ ...sample, reward: 0 }, 'rl-only')).toBeNull();
    const { hintedPromptIds: _h, ...noTeacher } = sample;
    expect(applyVariant(noTeacher, 'opd-only')).toBeNull();
  });
});
