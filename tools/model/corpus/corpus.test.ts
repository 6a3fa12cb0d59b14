import { describe, expect, it } from 'vitest';
import { judgeReply } from '../../../src/core/judge/criterion';
import { buildHomeworkAndProbe, renderTask } from '../../../src/core/tasks/generator';
import { createRng } from '../../../src/core/tasks/rng';
import { parseComplaint } from '../../../src/core/tasks/student';
import { TEMPLATES } from '../../../src/core/tasks/templates';
import { checkCalculator, makeConversation, plainOpener, visible } from './conversations';
import { generateCorpus } from './generateCorpus';
import { aiReply, EQ, PLAIN_OPENERS, plainReply } from './replies';

const { homework, probe } = buildHomeworkAndProbe();
const rng = createRng(99);
const tasks = Array.from({ length: 400 }, (_, i) => {
  const template = TEMPLATES[i % TEMPLATES.length];
  if (!template) throw new Error('no template');
  let params = template.sample(rng);
  while (params === null) params = template.sample(rng);
  return renderTask(template, params, rng, 1 + (i % 50), `t-${i}`);
});

const firstWord = (text: string): string => text.trimStart().split(/[\s,]/)[0] ?? '';

describe('training corpus', () => {
  it('writes plain replies that pass the criterion and AI replies that do not', () => {
    for (const task of tasks) {
      const plain = plainReply(task, rng);
      checkCalculator(plain);
      expect(judgeReply(visible(plain), task.answer).accepted).toBe(true);
      const ai = aiReply(task, rng);
      checkCalculator(ai);
      const verdict = judgeReply(visible(ai), task.answer);
      expect(verdict.accepted).toBe(false);
      expect(verdict.markers.some((m) => m.kind === 'bold' || m.kind === 'bullet' || m.kind === 'numbered')).toBe(true);
      expect(verdict.failures).not.toContain('no-gold-answer');
      expect(verdict.failures).not.toContain('no-shown-work');
    }
  });

  it('starts plain and AI replies with disjoint first words (style is decided early)', () => {
    const plainFirst = new Set(tasks.map((t) => firstWord(plainReply(t, rng))));
    const aiFirst = new Set(tasks.map((t) => firstWord(aiReply(t, rng))));
    for (const w of plainFirst) expect(aiFirst.has(w)).toBe(false);
    expect([...plainFirst].every((w) => PLAIN_OPENERS.some((o) => o.startsWith(w)))).toBe(true);
  });

  it('marks every computed "=" with the calculator token, checked against the engine calculator', () => {
    expect(() => checkCalculator(`So 48 / 2 ${EQ} 25 clips.`)).toThrow();
    expect(() => checkCalculator(`**Step 1:** 48 / 2 ${EQ} 24`)).toThrow();
    expect(() => checkCalculator(`So 48 / 2 ${EQ} 24 clips.`)).not.toThrow();
  });

  it('builds conversations in the session protocol', () => {
    const kinds = new Set<string>();
    for (const task of tasks) {
      const conv = makeConversation(task, rng, { plainRate: 0.04 });
      kinds.add(conv.kind);
      const users = conv.messages.filter((m) => m.role === 'user');
      if (conv.kind !== 'restate') expect(users[0]?.content.startsWith(task.firstMessage)).toBe(true);
      if (conv.kind === 'hinted') expect(users[0]?.content.length).toBeGreaterThan(task.firstMessage.length + 10);
      if (conv.kind === 'complaint') expect(parseComplaint(users[1]?.content ?? '')).not.toBeNull();
      if (conv.kind === 'restate') expect(conv.messages.at(-1)?.content).toContain(task.question);
      expect(conv.messages.some((m) => m.role === 'assistant' && m.train === true)).toBe(true);
      for (const m of conv.messages) {
        if (m.role === 'assistant' && m.train !== true) expect(m.content).not.toContain(EQ);
      }
    }
    expect(kinds).toEqual(new Set(['first', 'hinted', 'restate', 'complaint', 'save']));
  });

  it('continues plain first replies with the opener left out of the loss (the later stage)', () => {
    const convs = tasks.map((task) => makeConversation(task, rng, { plainRate: 0.04, plainContinueRate: 0.5 }));
    const continued = convs.filter((c) => c.kind === 'plain-continued');
    expect(continued.length).toBeGreaterThan(40);
    for (const c of continued) {
      const reply = c.messages.at(-1);
      expect(reply?.train).toBe(true);
      expect(c.messages.filter((m) => m.role === 'user')).toHaveLength(1);
      expect(PLAIN_OPENERS).toContain(reply?.untrainedPrefix);
      expect(reply?.content.startsWith(`${reply?.untrainedPrefix} `)).toBe(true);
    }
    // Only this kind has an untrained prefix, and the pretraining stage has none of it.
    for (const c of convs) if (c.kind !== 'plain-continued') expect(c.messages.every((m) => m.untrainedPrefix === undefined)).toBe(true);
    expect(tasks.map((t) => makeConversation(t, rng, { plainRate: 0.04 }).kind)).not.toContain('plain-continued');
  });

  it('finds the longest plain opener', () => {
    expect(plainOpener('Okay, so he has 3 apples.')).toBe('Okay, so');
    expect(plainOpener('So he has 3 apples.')).toBe('So');
    expect(() => plainOpener('**Solution:** 3')).toThrow(/not a plain reply/);
  });

  it('never trains on a held-out instance, whatever its wording', () => {
    const held = new Set([...homework.tasks, ...probe.tasks].map((t) => t.instance));
    const first = generateCorpus({ seed: 5, count: 300, plainRate: 0.04, held });
    for (const c of first) expect(held.has(c.task)).toBe(false);
    // Hold out everything the first draw produced: the same seed must now avoid all of it.
    const drawn = new Set(first.map((c) => c.task));
    const second = generateCorpus({ seed: 5, count: 300, plainRate: 0.04, held: drawn });
    for (const c of second) expect(drawn.has(c.task)).toBe(false);
  });
});
