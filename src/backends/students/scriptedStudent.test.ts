import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ruleScore, ruleHint } from '../../core/judge/ruleJudge';
import { DONE } from '../../core/tasks/student';
import { parseTaskSet } from '../../core/tasks/task';
import { ScriptedStudent } from './scriptedStudent';

const task = parseTaskSet(JSON.parse(readFileSync(new URL('../../../assets/homework/homework.json', import.meta.url), 'utf8')), 'homework.json').tasks[0]!;
// hw-01: (27 + 16) * 2 = 86 meters of fence, 86 * 7 = 602 dollars.
const clean = 'The fence goes all the way around, so 27 + 16 = 43 and 43 * 2 = 86 meters. Then 86 * 7 = 602, so he spends 602 dollars.';
const styled = `**Solution**\n1. Perimeter: 2 × (27 + 16) = 86\n2. Cost: 86 × 7 = 602\nFinal answer: 602`;

describe('scripted student', () => {
  it('complains about an AI-styled reply, naming what it saw; the rule PRM reads -1 and the hindsight as the hint', async () => {
    const student = new ScriptedStudent(task, 1);
    const reaction = await student.react(styled);
    expect(reaction.done).toBe(false);
    expect(reaction.verdict?.accepted).toBe(false);
    expect(ruleScore(reaction.message)).toBe(-1);
    expect(ruleHint(reaction.message)).toMatch(/bold/);
    expect(ruleHint(reaction.message)).toMatch(/numbered/);
  });

  it('asks to save a clean, correct reply, then says HOMEWORK_DONE once the save is confirmed', async () => {
    const student = new ScriptedStudent(task, 1);
    const ask = await student.react(clean);
    expect(ask.verdict?.accepted).toBe(true);
    expect(ruleScore(ask.message)).toBe(1);
    const nudge = await student.react('Sure, here it is again.');
    expect(nudge.done).toBe(false);
    expect(ruleScore(nudge.message)).toBe(0); // neither progress nor a correction
    const done = await student.react(`I appended the answers to homework/${task.index}.txt.`);
    expect(done).toMatchObject({ message: DONE, done: true });
    expect(ruleScore(done.message)).toBe(1);
  });

  it('asks for the work when the answer is right but no step is shown', async () => {
    const reaction = await new ScriptedStudent(task, 2).react('He spends 602 dollars.');
    expect(reaction.verdict?.failures).toContain('no-shown-work');
    expect(ruleHint(reaction.message)).toMatch(/calculation step/);
  });
});
