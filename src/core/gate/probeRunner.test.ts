import { describe, expect, it } from 'vitest';
import type { AdapterRef, EngineClient, GenerateRequest, GenerateResult } from '../protocols/engineProtocol';
import type { Task } from '../tasks/task';
import { EngineProbeSampler, problemSeed } from './probeRunner';

/**
 * An engine double that keeps the protocol's promise (a request runs on the version
 * current when it arrived) and answers nothing until told: what the test checks is
 * which requests were sent before any reply came back.
 */
class HeldEngine {
  current = 'base';
  readonly sent: { version: string; seed: number | undefined }[] = [];
  private readonly held: (() => void)[] = [];
  setAdapter(adapter: AdapterRef | null): Promise<string> {
    this.current = adapter?.version ?? 'base';
    return Promise.resolve(this.current);
  }
  generate(request: GenerateRequest): Promise<GenerateResult> {
    const version = this.current;
    this.sent.push({ version, seed: request.seed });
    return new Promise((resolve) =>
      this.held.push(() => resolve({ text: `reply of ${version}`, version, finishReason: 'stop', completionTokens: 3 } as unknown as GenerateResult)),
    );
  }
  release(): void {
    for (const answer of this.held.splice(0)) answer();
  }
}

const task = (i: number): Task => ({
  id: `probe-0${i}`,
  index: i,
  template: 'topic',
  instance: `topic:${i}`,
  question: `q${i}`,
  steps: [],
  answer: 0,
  answerText: '',
  firstMessage: `q${i}`,
  mentions: ['w'],
});
const candidate: AdapterRef = { version: 'v3', sha256: 'a'.repeat(64), path: '/x', adapterConfigPath: '/y', loraAlpha: 32 };

describe('EngineProbeSampler.sampleRound', () => {
  it('sends both sides before either has a reply, each on its own version and the same seeds', async () => {
    const engine = new HeldEngine();
    const sampler = new EngineProbeSampler(engine as unknown as EngineClient, [task(1), task(2)], {
      temperature: 0.6,
      top_p: 0.95,
      top_k: 20,
      max_tokens: 16,
    });
    const round = sampler.sampleRound(candidate, null, 100);
    await expect.poll(() => engine.sent.length).toBe(4);
    expect(engine.sent).toEqual([
      { version: 'v3', seed: problemSeed(100, 0) },
      { version: 'v3', seed: problemSeed(100, 1) },
      { version: 'base', seed: problemSeed(100, 0) },
      { version: 'base', seed: problemSeed(100, 1) },
    ]);
    engine.release();
    const { candidate: c, serving: s } = await round;
    expect(c.map((r) => r.text)).toEqual(['reply of v3', 'reply of v3']);
    expect(s.map((r) => [r.taskId, r.text, r.mentions])).toEqual([
      ['probe-01', 'reply of base', ['w']],
      ['probe-02', 'reply of base', ['w']],
    ]);
  });
});
