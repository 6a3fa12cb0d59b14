import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findAnswer } from '../preference/floorAnswer';
import { buildQuestionSets, buildTopicSets } from './questions';
import { parseTaskSet } from './task';
import { TOPICS } from './topics';

const ASSETS = join(__dirname, '..', '..', '..', 'assets', 'questions');
const read = (file: string) => parseTaskSet(JSON.parse(readFileSync(join(ASSETS, file), 'utf8')), file);

describe('the preference recipes’ question sets', () => {
  it('are the seeded generators’ output, checked in as written (npx tsx src/core/tasks/writeQuestions.ts)', () => {
    const numbers = buildQuestionSets();
    const topics = buildTopicSets();
    expect(read('questions.json')).toEqual(numbers.questions);
    expect(read('probe.json')).toEqual(numbers.probe);
    expect(read('topics/questions.json')).toEqual(topics.questions);
    expect(read('topics/probe.json')).toEqual(topics.probe);
  });

  it('share no question between the sessions and the probe', () => {
    for (const { questions, probe } of [buildQuestionSets(), buildTopicSets()]) {
      const seen = new Set(questions.tasks.map((t) => t.instance));
      expect(probe.tasks.filter((t) => seen.has(t.instance))).toEqual([]);
      expect(new Set(questions.tasks.map((t) => t.instance)).size).toBe(questions.tasks.length);
    }
  });

  it('each arithmetic question’s answer is its own sum, difference or product', () => {
    for (const t of buildQuestionSets().questions.tasks.filter((t) => t.template === 'arithmetic')) {
      const [, x, op, y] = /^What is (\d+) (plus|minus|times) (\d+)\?$/u.exec(t.question) ?? [];
      const value = op === 'plus' ? Number(x) + Number(y) : op === 'minus' ? Number(x) - Number(y) : Number(x) * Number(y);
      expect(findAnswer(`It is ${value}.`, t.answer), t.question).not.toBeNull();
    }
  });

  it('refuses more topic questions than there are topics', () => {
    expect(() => buildTopicSets(1, TOPICS.length, 1)).toThrow(/topic questions asked for; there are/u);
  });
});
