import { describe, expect, it } from 'vitest';
import { parseTrainBatch, TrainerInputError, type TrainSample } from './trainSample';

const sample = (overrides: Partial<TrainSample> = {}): TrainSample => ({
  sessionId: 'run/session-0',
  turn: 0,
  messages: [{ role: 'user', content: 'My homework is in homework/1.txt.' }],
  responseIds: [10, 11, 4],
  logprobs: [-0.5, -1, -0.1],
  topIds: [
    [10, 12],
    [11, 13],
    [4, 5],
  ],
  topLogprobs: [
    [-0.5, -1.2],
    [-1, -1.1],
    [-0.1, -3],
  ],
  reward: -1,
  ...overrides,
});

describe('the train sample (the trainer protocol’s input)', () => {
  it('takes a judged turn as messages, the hint in text and the engine’s response; forced is optional', () => {
    expect(parseTrainBatch([sample(), sample({ hint: 'Drop the bold.', reward: 0 }), sample({ forced: [false, true, false] })])).toHaveLength(3);
  });

  it('refuses what cannot train, naming the sample and the field', () => {
    const refused = (batch: unknown[]) => {
      try {
        parseTrainBatch(batch);
      } catch (error) {
        expect(error).toBeInstanceOf(TrainerInputError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused([sample(), sample({ reward: 0 })])).toMatch(/sample 1 \(session run\/session-0, turn 0\): reward reward 0 and no teacher/);
    expect(
      refused([
        sample({
          messages: [
            { role: 'user', content: 'q' },
            { role: 'assistant', content: 'a' },
          ],
        }),
      ]),
    ).toMatch(/messages must end with the user message/);
    expect(refused([sample({ logprobs: [-0.5, -1] })])).toMatch(/logprobs has 2 entries but responseIds has 3/);
    expect(refused([sample({ topIds: [[10, 12], [11], [4, 5]] })])).toMatch(/topIds\.1 has 1 ids; position 0 has K = 2/);
    expect(refused([sample({ forced: [true, true, true] })])).toMatch(/every response token is forced/);
    expect(refused([sample({ logprobs: [-0.5, 0.5, -0.1] })])).toMatch(/a log-prob cannot be positive/);
    expect(
      refused([
        sample({
          hint: 'x',
          teacherTopLogprobs: [
            [-1, -2],
            [-1, -2],
            [-1, -2],
          ],
        }),
      ]),
    ).toMatch(/either as a hint or as teacherTopLogprobs/);
    expect(refused([])).toMatch(/non-empty array/);
  });
});
