import { describe, expect, it } from 'vitest';
import { ruleHint, ruleScore } from '../../core/judge/ruleJudge';
import { judgeProbeReply } from '../../core/gate/probeMetrics';
import { replyCriterion } from '../../core/preference/replyCriterion';
import { FLOOR_HINDSIGHT, PREFERENCE_THANKS } from '../../core/tasks/student';
import { VOLCANO_TASK } from '../../core/preference/testing/volcanoTask';
import { preferenceStudents } from './preferenceStudent';

const preference = { rule: { kind: 'max_words', words: 8 }, statement: 'Please keep it short: one sentence.' } as const;
const task = VOLCANO_TASK;

describe('the preference user and the rule judge read each other', () => {
  it('asks its question; a reply that meets the preference and the floor gets thanks (+1) and ends the session', async () => {
    const student = preferenceStudents(preference).forSession(task, 7);
    expect(await student.firstMessage()).toBe('What is a volcano?');
    const reaction = await student.react('A volcano is a mountain that erupts lava.', []);
    expect(reaction).toMatchObject({ message: PREFERENCE_THANKS, done: true, verdict: { accepted: true } });
    expect(ruleScore(reaction.message)).toBe(1);
    expect(ruleHint(reaction.message)).toBeUndefined();
  });

  it('a reply that breaks the preference gets a complaint (−1) whose hint is the statement', async () => {
    const reaction = await preferenceStudents(preference).forSession(task, 7).react('A volcano is a big mountain where hot lava comes out.', []);
    expect(reaction.done).toBe(false);
    expect(reaction.verdict?.failures).toEqual(['preference']);
    expect(ruleScore(reaction.message)).toBe(-1);
    expect(ruleHint(reaction.message)).toBe(preference.statement);
  });

  it('a brief reply that does not answer is asked to answer, the statement left out', async () => {
    const reaction = await preferenceStudents(preference).forSession(task, 7).react('ok.', []);
    expect(ruleScore(reaction.message)).toBe(-1);
    expect(ruleHint(reaction.message)).toBe(FLOOR_HINDSIGHT);
  });

  it('the same seed says the same; the probe judges a reply as the sessions do', async () => {
    const a = await preferenceStudents(preference).forSession(task, 3).react('Long long long long long long long long long words.', []);
    const b = await preferenceStudents(preference).forSession(task, 3).react('Long long long long long long long long long words.', []);
    expect(a.message).toBe(b.message);
    const probed = judgeProbeReply(
      { taskId: 'q-01', gold: 0, mentions: ['volcano', 'lava'], seed: 1, text: 'Lava comes out of it.', finishReason: 'stop', completionTokens: 6 },
      replyCriterion(preference),
    );
    expect(probed.verdict).toMatchObject({ accepted: true, goldAt: { start: 0, end: 4 } });
  });
});
