import { describe, expect, it } from 'vitest';
import { judgeReply } from './criterion';
import { verdictSchema } from './verdictSchema';

describe('verdictSchema', () => {
  it('accepts what judgeReply returns, through JSON', () => {
    for (const reply of ['', '**36**', 'We get 20 + 44 = 64 and 100 - 64 = 36.', '# H\n- a\n1. b\n| c |\nFinal answer: \\boxed{36}']) {
      const v = judgeReply(reply, 36);
      expect(verdictSchema.parse(JSON.parse(JSON.stringify(v)))).toEqual(v);
    }
  });

  it('rejects inconsistent or unknown data', () => {
    const ok = judgeReply('**36**', 36);
    expect(verdictSchema.safeParse({ ...ok, accepted: true }).success).toBe(false);
    expect(verdictSchema.safeParse({ ...ok, reason: 'no-gold-answer' }).success).toBe(false);
    expect(verdictSchema.safeParse({ ...ok, markers: [{ kind: 'italic', start: 0, end: 1 }] }).success).toBe(false);
    expect(verdictSchema.safeParse({ ...ok, goldAt: { start: 3, end: 3 } }).success).toBe(false);
    expect(verdictSchema.safeParse({ ...ok, extra: 1 }).success).toBe(false);
  });
});
