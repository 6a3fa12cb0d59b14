import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evaluate } from './arithmetic';
import { buildHomeworkAndProbe, generateTasks, HOMEWORK_COUNT } from './generator';
import { createRng } from './rng';
import { homeworkPath } from './student';
import { parseTaskSet, type Task } from './task';
import { TEMPLATES } from './templates';

const { homework, probe } = buildHomeworkAndProbe();

function checkTask(task: Task): void {
  expect(task.steps.length).toBeGreaterThanOrEqual(2);
  expect(task.steps.length).toBeLessThanOrEqual(5);
  for (const step of task.steps) {
    const value = evaluate(step.expr);
    expect(value).toBe(step.result);
    expect(Number.isInteger(value) && value > 0).toBe(true);
    expect(step.text).toMatch(/[A-Za-z:] \{eq\}/);
  }
  expect(task.answer).toBe(task.steps[task.steps.length - 1]?.result);
  expect(task.firstMessage).toContain(homeworkPath(task.index));
  expect(task.firstMessage).toContain(task.question);
  expect(task.answerText).toContain('{a}');
}

describe('homework generator', () => {
  it('makes 72 homework and 24 probe tasks, each verified by evaluating its steps', () => {
    expect(homework.tasks).toHaveLength(HOMEWORK_COUNT);
    expect(probe.tasks.length).toBeGreaterThanOrEqual(24);
    for (const task of [...homework.tasks, ...probe.tasks]) checkTask(task);
  });

  it('keeps the probe disjoint from the homework by instance, not only by text', () => {
    const hw = new Set(homework.tasks.map((t) => t.instance));
    expect(hw.size).toBe(homework.tasks.length);
    for (const t of probe.tasks) expect(hw.has(t.instance)).toBe(false);
  });

  it('covers every template, with varied wording', () => {
    expect(TEMPLATES.length).toBeGreaterThanOrEqual(15);
    const used = new Set(homework.tasks.map((t) => t.template));
    for (const t of TEMPLATES) expect(used.has(t.id)).toBe(true);
    const openings = new Set(homework.tasks.map((t) => t.firstMessage.slice(0, 12)));
    expect(openings.size).toBeGreaterThan(2);
  });

  it('is reproducible from its seed and matches the committed assets', () => {
    expect(buildHomeworkAndProbe()).toEqual({ homework, probe });
    const committedHw = parseTaskSet(JSON.parse(readFileSync('assets/homework/homework.json', 'utf8')), 'homework.json');
    const committedProbe = parseTaskSet(JSON.parse(readFileSync('assets/homework/probe.json', 'utf8')), 'probe.json');
    expect(committedHw).toEqual(homework);
    expect(committedProbe).toEqual(probe);
  });

  it('never reuses an instance it was told to avoid', () => {
    const used = new Set(homework.tasks.map((t) => t.instance));
    const before = new Set(used);
    const more = generateTasks({ seed: 7, count: 500, used, idPrefix: 'x', indexOf: (i) => i + 1 });
    for (const t of more) expect(before.has(t.instance)).toBe(false);
    expect(new Set(more.map((t) => t.instance)).size).toBe(500);
  });

  it('renders the same instance in different words', () => {
    const template = TEMPLATES.find((t) => t.id === 'sold-ratio');
    if (!template) throw new Error('template missing');
    const params = { a: 48, k: 2, more: 0 };
    const texts = new Set(Array.from({ length: 20 }, (_, i) => template.render(params, createRng(i)).question));
    expect(texts.size).toBeGreaterThan(5);
  });
});
