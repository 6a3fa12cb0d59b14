/**
 * Writes the policy's training corpus and its evaluation prompts:
 *   npx tsx tools/model/corpus/buildCorpus.ts --seed 1 --count 40000 --out tools/model/out
 * → corpus.jsonl (one conversation a line), eval.jsonl (the homework and probe
 * prompts, hinted and not, for tools/model/evaluate.py).
 *
 * Training instances never equal a homework or probe instance (same template
 * and numbers), whatever their wording.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildHomeworkAndProbe } from '../../../src/core/tasks/generator';
import { createRng, deriveSeed } from '../../../src/core/tasks/rng';
import { complaintFor, saveRequest } from '../../../src/core/tasks/student';
import { TEMPLATES } from '../../../src/core/tasks/templates';
import { visible, violationKinds } from './conversations';
import { generateCorpus } from './generateCorpus';
import { aiReply, plainReply } from './replies';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  return v ?? fallback;
}

const seed = Number(arg('seed', '1'));
const count = Number(arg('count', '40000'));
const plainRate = Number(arg('plain-rate', '0.04'));
const plainContinueRate = Number(arg('plain-continue-rate', '0'));
const outDir = arg('out', 'tools/model/out');
const isRate = (x: number) => x >= 0 && x <= 1;
if (!Number.isInteger(seed) || !Number.isInteger(count) || count < 1 || !isRate(plainRate) || !isRate(plainContinueRate)) {
  throw new Error('usage: buildCorpus.ts --seed INT --count INT [--plain-rate 0..1] [--plain-continue-rate 0..1] [--out DIR]');
}

const { homework, probe } = buildHomeworkAndProbe();
const held = new Set([...homework.tasks, ...probe.tasks].map((t) => t.instance));

const conversations = generateCorpus({ seed, count, plainRate, plainContinueRate, held });
const lines = conversations.map((c) => JSON.stringify(c));
const kinds: Record<string, number> = {};
for (const c of conversations) kinds[c.kind] = (kinds[c.kind] ?? 0) + 1;

const evalRng = createRng(deriveSeed(seed, 'eval'));
const evalLines = [...homework.tasks.map((t) => ['homework', t] as const), ...probe.tasks.map((t) => ['probe', t] as const)].map(([set, task]) => {
  const ai = visible(aiReply(task, evalRng));
  const hint = complaintFor(violationKinds(ai, task.answer), evalRng).hindsight;
  return JSON.stringify({
    set,
    id: task.id,
    index: task.index,
    gold: task.answer,
    template: task.template,
    first: task.firstMessage,
    hint,
    plain: visible(plainReply(task, evalRng)),
    save: saveRequest(task),
  });
});

mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'corpus.jsonl'), `${lines.join('\n')}\n`);
writeFileSync(join(outDir, 'eval.jsonl'), `${evalLines.join('\n')}\n`);
console.log(JSON.stringify({ seed, count, plainRate, plainContinueRate, kinds, templates: TEMPLATES.length, held: held.size }));
