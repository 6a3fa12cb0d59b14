import { describe, expect, it } from 'vitest';
import { LOOP_WINDOW_WORDS } from '../preference/loopingReply';
import { replyCriterion } from '../preference/replyCriterion';
import { EngineError, type AdapterRef, type EngineClient, type GeneratedTokens, type GenerateRequest, type GenerateResult } from '../protocols/engineProtocol';
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

/**
 * An engine double that streams a fixed reply a word at a time, one word per
 * turn of the event loop, and stops when told (or, `canStop` false, finishes anyway).
 */
class StreamingEngine {
  decoded = 0;
  constructor(
    private readonly words: string[],
    private readonly canStop: boolean,
  ) {}
  setAdapter(adapter: AdapterRef | null): Promise<string> {
    return Promise.resolve(adapter?.version ?? 'base');
  }
  async generate(_request: GenerateRequest, onTokens?: (t: GeneratedTokens) => void, stop?: AbortSignal): Promise<GenerateResult> {
    for (const [i, word] of this.words.entries()) {
      if (this.canStop && stop?.aborted) throw new EngineError('stopped', 'stopped by the caller');
      await Promise.resolve();
      this.decoded += 1;
      onTokens?.({ tokenIds: [i], text: i === 0 ? word : ` ${word}`, logprobs: [0], topIds: [[]], topLogprobs: [[]] });
    }
    return { text: this.words.join(' '), version: 'v3', finishReason: 'length', completionTokens: this.words.length } as unknown as GenerateResult;
  }
}

describe('EngineProbeSampler stops a reply once its verdict is settled', () => {
  // Past the loop check's window, and no phrase said thrice: the floor is decided once 30 words are whole.
  const words = ['A', 'volcano', 'is', 'a', 'mountain', ...Array.from({ length: LOOP_WINDOW_WORDS }, (_, i) => `w${i}`)];
  const sampling = { temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 64 };
  const criterion = replyCriterion({ rule: { kind: 'max_words', words: 3 }, statement: 'Please keep it very short.' });
  const volcano = { ...task(1), mentions: ['volcano'] };
  /** The candidate's one reply in a round on `engine`, judged by the stated preference. */
  const candidateReply = async (engine: StreamingEngine) =>
    (await new EngineProbeSampler(engine as unknown as EngineClient, [volcano], sampling, criterion).sampleRound(candidate, candidate, 7)).candidate[0];

  it('stops decoding after the word that broke the rule once the topic is named, and keeps what it had', async () => {
    const reply = await candidateReply(new StreamingEngine(words, true));
    // "A volcano is a" breaks "at most 3" and names the topic; the 30th word is whole once the
    // 31st begins, and the stop is seen before the one after.
    expect(reply?.finishReason).toBe('settled');
    expect(reply?.text).toBe(words.slice(0, LOOP_WINDOW_WORDS + 1).join(' '));
    expect(reply?.completionTokens).toBe(LOOP_WINDOW_WORDS + 1);
    expect(criterion.judge(reply!.text, volcano).failures).toEqual(criterion.judge(words.join(' '), volcano).failures);
  });

  it('takes the whole reply from an engine that cannot stop', async () => {
    const reply = await candidateReply(new StreamingEngine(words, false));
    expect(reply?.finishReason).toBe('length');
    expect(reply?.text).toBe(words.join(' '));
  });

  it('reads a homework reply to its end', async () => {
    const engine = new StreamingEngine(words, true);
    const sampler = new EngineProbeSampler(engine as unknown as EngineClient, [volcano], sampling);
    await sampler.sampleRound(candidate, candidate, 7);
    expect(engine.decoded).toBe(2 * words.length);
  });
});
