import { instanceKey, renderTask } from '../../../src/core/tasks/generator';
import { createRng, deriveSeed } from '../../../src/core/tasks/rng';
import type { Task } from '../../../src/core/tasks/task';
import { TEMPLATES } from '../../../src/core/tasks/templates';
import { type Conversation, makeConversation } from './conversations';

export interface CorpusOptions {
  seed: number;
  count: number;
  plainRate: number;
  /** See MixOptions.plainContinueRate. */
  plainContinueRate?: number;
  /** Instance keys that must never be trained on (the homework and the probe set). */
  held: ReadonlySet<string>;
}

/**
 * `count` conversations, each about a fresh draw from a uniformly chosen
 * template; a draw equal to a held-out instance is redrawn. Instances may
 * repeat inside the corpus (with other names and wording).
 */
export function generateCorpus(opts: CorpusOptions): Conversation[] {
  const rng = createRng(deriveSeed(opts.seed, 'corpus'));
  const out: Conversation[] = [];
  for (let i = 0; i < opts.count; i++) {
    const template = rng.pick(TEMPLATES);
    let params = template.sample(rng);
    while (params === null || opts.held.has(instanceKey(template, params))) params = template.sample(rng);
    const task: Task = renderTask(template, params, rng, rng.int(1, 99), `train-${i}`);
    if (opts.held.has(task.instance)) throw new Error(`held-out instance leaked: ${task.instance}`);
    out.push(makeConversation(task, rng, { plainRate: opts.plainRate, plainContinueRate: opts.plainContinueRate ?? 0 }));
  }
  return out;
}
