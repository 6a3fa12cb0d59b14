import { evaluate } from './arithmetic';
import { createRng, deriveSeed, type Rng } from './rng';
import { composeFirstMessage, FIRST_MESSAGE_PHRASINGS } from './student';
import type { Task, TaskSet } from './task';
import { TEMPLATES, type Params, type Template } from './templates';

/** Template + numbers, sorted by name: what "the same instance" means. */
export function instanceKey(template: Template, params: Params): string {
  const entries = Object.keys(params)
    .sort()
    .map((k) => `${k}=${params[k]}`);
  return `${template.id}:${entries.join(',')}`;
}

export class TaskGenerationError extends Error {
  override readonly name = 'TaskGenerationError';
}

/**
 * Render one instance into a task and verify it: every step must evaluate to a
 * positive integer and the gold answer is the last step's value.
 */
export function renderTask(template: Template, params: Params, rng: Rng, index: number, id: string): Task {
  const rendered = template.render(params, rng);
  if (rendered.steps.length < 2 || rendered.steps.length > 5) {
    throw new TaskGenerationError(`${template.id}: ${rendered.steps.length} steps (want 2-5)`);
  }
  const steps = rendered.steps.map((s) => {
    const result = evaluate(s.expr);
    if (!Number.isInteger(result) || result <= 0) {
      throw new TaskGenerationError(`${template.id}: step "${s.expr}" = ${result} is not a positive integer`);
    }
    if (!/[A-Za-z:] \{eq\}/.test(s.text) || s.text.split('{eq}').length !== 2) {
      throw new TaskGenerationError(`${template.id}: step text "${s.text}" must hold one {eq} after a word`);
    }
    return { ...s, result };
  });
  const answer = steps[steps.length - 1]?.result ?? 0;
  const question = rendered.question.replace(/\s+/g, ' ').trim();
  const phrasing = rng.int(0, FIRST_MESSAGE_PHRASINGS.length - 1);
  return {
    id,
    index,
    template: template.id,
    instance: instanceKey(template, params),
    question,
    steps,
    answer,
    answerText: rendered.answerText,
    firstMessage: composeFirstMessage(index, question, phrasing),
  };
}

/** Draw a fresh instance of `template` whose key is not in `used`; records it there. */
export function drawInstance(template: Template, rng: Rng, used: Set<string>): Params {
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const params = template.sample(rng);
    if (params === null) continue;
    const key = instanceKey(template, params);
    if (used.has(key)) continue;
    used.add(key);
    return params;
  }
  throw new TaskGenerationError(`${template.id}: no unused instance after 10000 draws`);
}

export interface GenerateOptions {
  seed: number;
  count: number;
  /** Instance keys that must not be produced (and will be added to as tasks are made). */
  used: Set<string>;
  idPrefix: string;
  /** homework/N.txt numbers: `indexOf(i)` for the i-th task (0-based). */
  indexOf: (i: number) => number;
  templates?: readonly Template[];
}

/**
 * Tasks cycling through the templates in a seeded order, so every template is
 * represented about equally; each one a fresh instance.
 */
export function generateTasks(opts: GenerateOptions): Task[] {
  const templates = opts.templates ?? TEMPLATES;
  const rng = createRng(opts.seed);
  const tasks: Task[] = [];
  let order: Template[] = [];
  for (let i = 0; i < opts.count; i++) {
    if (order.length === 0) order = rng.shuffle(templates);
    const template = order.shift() as Template;
    const params = drawInstance(template, rng, opts.used);
    const id = `${opts.idPrefix}-${String(i + 1).padStart(2, '0')}`;
    tasks.push(renderTask(template, params, rng, opts.indexOf(i), id));
  }
  return tasks;
}

export const HOMEWORK_SEED = 20_250_714;
export const HOMEWORK_COUNT = 72;
export const PROBE_COUNT = 24;

/**
 * The committed homework (72 tasks, homework/1.txt … homework/72.txt) and the
 * pinned probe set (24 tasks, instances disjoint from the homework's).
 */
export function buildHomeworkAndProbe(seed = HOMEWORK_SEED): { homework: TaskSet; probe: TaskSet } {
  const used = new Set<string>();
  const homework = generateTasks({
    seed: deriveSeed(seed, 'homework'),
    count: HOMEWORK_COUNT,
    used,
    idPrefix: 'hw',
    indexOf: (i) => i + 1,
  });
  const probe = generateTasks({
    seed: deriveSeed(seed, 'probe'),
    count: PROBE_COUNT,
    used,
    idPrefix: 'probe',
    indexOf: (i) => i + 1,
  });
  return {
    homework: { version: 1, kind: 'homework', seed, tasks: homework },
    probe: { version: 1, kind: 'probe', seed, tasks: probe },
  };
}

/** How hard a task set is: at most this many steps, every step's value at most this. */
export interface Difficulty {
  maxSteps: number;
  maxValue: number;
}

/**
 * The easy homework for a small real model (recipes/smollm2-135m-cpu.yaml):
 * SmolLM2-135M gets the final number of the standard homework right about
 * once in 30 tries (bench:base), so no session could ever be accepted. Same
 * templates, same wording, same criterion; only instances within the
 * difficulty are kept (a rejected draw's instance stays free).
 */
export function generateTasksWithin(opts: GenerateOptions & { difficulty: Difficulty }): Task[] {
  const templates = opts.templates ?? TEMPLATES;
  const rng = createRng(opts.seed);
  const tasks: Task[] = [];
  let order: Template[] = [];
  for (let attempt = 0; tasks.length < opts.count; attempt++) {
    if (attempt > 200_000) throw new TaskGenerationError(`only ${tasks.length} of ${opts.count} tasks within ${JSON.stringify(opts.difficulty)}`);
    if (order.length === 0) order = rng.shuffle(templates);
    const template = order.shift() as Template;
    const params = template.sample(rng);
    if (params === null || opts.used.has(instanceKey(template, params))) continue;
    const id = `${opts.idPrefix}-${String(tasks.length + 1).padStart(2, '0')}`;
    const task = renderTask(template, params, rng, opts.indexOf(tasks.length), id);
    if (task.steps.length > opts.difficulty.maxSteps || task.steps.some((s) => s.result > opts.difficulty.maxValue)) continue;
    opts.used.add(task.instance);
    tasks.push(task);
  }
  return tasks;
}

/** Two steps, values up to 100: what SmolLM2-135M can answer at all (bench:base, bench/results/smollm2-base.json). */
export const EASY_DIFFICULTY: Difficulty = { maxSteps: 2, maxValue: 100 };

/** The easy homework (72) and probe set (24), disjoint instances, seeded like the standard ones. */
export function buildEasyHomeworkAndProbe(seed = HOMEWORK_SEED, difficulty = EASY_DIFFICULTY): { homework: TaskSet; probe: TaskSet } {
  const used = new Set<string>();
  const homework = generateTasksWithin({
    seed: deriveSeed(seed, 'easy-homework'),
    count: HOMEWORK_COUNT,
    used,
    idPrefix: 'hw',
    indexOf: (i) => i + 1,
    difficulty,
  });
  const probe = generateTasksWithin({
    seed: deriveSeed(seed, 'easy-probe'),
    count: PROBE_COUNT,
    used,
    idPrefix: 'probe',
    indexOf: (i) => i + 1,
    difficulty,
  });
  return {
    homework: { version: 1, kind: 'homework', seed, tasks: homework },
    probe: { version: 1, kind: 'probe', seed, tasks: probe },
  };
}
