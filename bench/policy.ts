/**
 * bench:policy — the embedded base policy's behaviour, measured against its
 * targets. On the 72 homework tasks and on the probe set, each asked exactly
 * the way the student asks (`firstMessage`), default sampling, 3 seeds:
 *
 * - the first reply, judged by the pass criterion (src/core/judge):
 *   gold answer present, ≥ 2 shown-work steps, style clean (no marker of any
 *   kind), full criterion passed;
 * - the same first message with the hint appended (as the OPD teacher gets
 *   it): the hint is the scripted student's hindsight about the unhinted
 *   reply's violations (`['bold']` when it had none, as the corpus does);
 * - the save request: after a clean reply (the hinted one) the student asks
 *   to append the answers; answered when the agent confirms within 2 turns
 *   (the student repeats the request once).
 *
 * Prints a table with the targets and writes bench/results/policy.json.
 *
 *   npm run bench:policy -- [--seeds 3] [--limit N] [--model DIR] [--threads 2] [--concurrency 8]
 */
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { judgeReply, MIN_SHOWN_WORK } from '../src/core/judge/criterion';
import { createRng } from '../src/core/tasks/rng';
import { complaintFor, confirmsSave, firstMessage, saveRequest, violationKinds } from '../src/core/tasks/student';
import { parseTaskSet, type Task } from '../src/core/tasks/task';
import { Engine } from '../src/backends/embedded/engine/engine';
import { GenerateParamsSchema, type EngineChatMessage, type GenerateResult } from '../src/backends/embedded/engine/embeddedEngineProtocol';
import { ortThreads } from '../src/backends/embedded/engine/ortSession';

const root = fileURLToPath(new URL('..', import.meta.url));

const { values: args } = parseArgs({
  options: {
    seeds: { type: 'string', default: '3' },
    limit: { type: 'string' },
    model: { type: 'string', default: join(root, 'assets/models/policy') },
    /** ORT intra-op threads; the engine's default (1) batches best on two cores. */
    threads: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
    'max-tokens': { type: 'string', default: '768' },
    out: { type: 'string', default: join(root, 'bench/results/policy.json') },
  },
});

const SEEDS = Number(args.seeds);
const LIMIT = args.limit === undefined ? Infinity : Number(args.limit);
const CONCURRENCY = Number(args.concurrency);
/** Large enough for a complete reply: a probe that truncates scores truncation (docs/design.md, Probe rounds). */
const MAX_TOKENS = Number(args['max-tokens']);

/** What the base policy must do for the embedded recipe to mean anything (docs/design.md, The embedded default). */
const TARGETS = {
  gold: { label: 'gold answer present', op: '>=', value: 0.9 },
  shownWork: { label: `≥ ${MIN_SHOWN_WORK} shown work steps`, op: '>=', value: 0.9 },
  styleClean: { label: 'style clean (no marker)', op: '<=', value: 0.1 },
  accepted: { label: 'full criterion passed', op: '<=', value: 0.1 },
  hintStyleClean: { label: 'with the hint: style clean', op: '>=', value: 0.8 },
  hintGold: { label: 'with the hint: gold present', op: '>=', value: 0.9 },
  saveAnswered: { label: 'save request answered in ≤ 2 turns', op: '>=', value: 0.9 },
} as const satisfies Record<string, { label: string; op: '>=' | '<='; value: number }>;
type Measure = keyof typeof TARGETS;
const MEASURES = Object.keys(TARGETS) as Measure[];

interface Trial {
  readonly task: Task;
  readonly seed: number;
}

interface TrialResult {
  readonly taskId: string;
  readonly seed: number;
  readonly values: Record<Measure, boolean>;
  readonly markers: string[];
  readonly hint: string;
  readonly saveTurns: number | null;
  readonly truncated: boolean;
  readonly replyChars: number;
  readonly tokens: number;
}

/** Runs `work` over `items` with at most `limit` in flight, so the engine can batch them. */
async function pool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i] as T);
  });
  await Promise.all(lanes);
  return results;
}

async function runTrial(engine: Engine, { task, seed }: Trial): Promise<TrialResult> {
  const ask = (messages: EngineChatMessage[], hint?: string): Promise<GenerateResult> =>
    engine.generate(
      GenerateParamsSchema.parse({
        messages,
        seed,
        sampling: { maxTokens: MAX_TOKENS },
        logprobsTopK: 0,
        ...(hint === undefined ? {} : { hint }),
      }),
    );
  const first: EngineChatMessage = { role: 'user', content: firstMessage(task) };

  const plain = await ask([first]);
  const verdict = judgeReply(plain.text, task.answer);
  const kinds = violationKinds(verdict);
  const hint = complaintFor(kinds.length > 0 ? kinds : ['bold'], createRng(seed)).hindsight;

  const hinted = await ask([first], hint);
  const hintedVerdict = judgeReply(hinted.text, task.answer);

  // The save request follows a clean reply: the hinted one stands in for it.
  const conversation: EngineChatMessage[] = [first, { role: 'assistant', content: hinted.text }, { role: 'user', content: saveRequest(task) }];
  let saveTurns: number | null = null;
  let tokens = plain.completionTokens + hinted.completionTokens;
  for (let turn = 1; turn <= 2 && saveTurns === null; turn += 1) {
    const reply = await ask(conversation);
    tokens += reply.completionTokens;
    if (reply.text.trim() !== '' && confirmsSave(reply.text, task)) saveTurns = turn;
    else conversation.push({ role: 'assistant', content: reply.text }, { role: 'user', content: saveRequest(task) });
  }

  return {
    taskId: task.id,
    seed,
    values: {
      gold: verdict.goldAt !== null,
      shownWork: verdict.shownWork.length >= MIN_SHOWN_WORK,
      styleClean: verdict.reason !== 'no-reply' && verdict.markers.length === 0,
      accepted: verdict.accepted,
      hintStyleClean: hintedVerdict.reason !== 'no-reply' && hintedVerdict.markers.length === 0,
      hintGold: hintedVerdict.goldAt !== null,
      saveAnswered: saveTurns !== null,
    },
    markers: [...new Set(verdict.markers.map((m) => m.kind))],
    hint,
    saveTurns,
    truncated: plain.finishReason === 'length' || hinted.finishReason === 'length',
    replyChars: plain.text.length,
    tokens,
  };
}

interface SetSummary {
  readonly trials: number;
  readonly rates: Record<Measure, number>;
  readonly pass: Record<Measure, boolean>;
  readonly markerRates: Record<string, number>;
  readonly truncatedRate: number;
  readonly meanReplyChars: number;
}

function summarize(results: readonly TrialResult[]): SetSummary {
  const n = results.length;
  const rate = (f: (r: TrialResult) => boolean) => results.filter(f).length / n;
  const rates = Object.fromEntries(MEASURES.map((m) => [m, rate((r) => r.values[m])])) as Record<Measure, number>;
  const pass = Object.fromEntries(
    MEASURES.map((m) => {
      const t = TARGETS[m];
      return [m, t.op === '>=' ? rates[m] >= t.value : rates[m] <= t.value];
    }),
  ) as Record<Measure, boolean>;
  const kinds = [...new Set(results.flatMap((r) => r.markers))].sort();
  return {
    trials: n,
    rates,
    pass,
    markerRates: Object.fromEntries(kinds.map((k) => [k, rate((r) => r.markers.includes(k))])),
    truncatedRate: rate((r) => r.truncated),
    meanReplyChars: results.reduce((s, r) => s + r.replyChars, 0) / n,
  };
}

function loadTasks(name: 'homework' | 'probe'): Task[] {
  const path = join(root, 'assets/homework', `${name}.json`);
  return parseTaskSet(JSON.parse(readFileSync(path, 'utf8')), path).tasks.slice(0, LIMIT);
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

async function main(): Promise<void> {
  const started = performance.now();
  const engine = await Engine.load(args.model, { maxBatch: CONCURRENCY, ...(args.threads === undefined ? {} : { threads: Number(args.threads) }) });
  const manifest = JSON.parse(readFileSync(join(args.model, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  const sets = { homework: loadTasks('homework'), probe: loadTasks('probe') };
  const summaries: Record<string, SetSummary> = {};
  const details: Record<string, TrialResult[]> = {};
  let tokens = 0;
  for (const [name, tasks] of Object.entries(sets)) {
    const trials: Trial[] = [];
    for (let s = 1; s <= SEEDS; s += 1) for (const task of tasks) trials.push({ task, seed: s * 1000 + task.index });
    const t0 = performance.now();
    const results = await pool(trials, CONCURRENCY, (trial) => runTrial(engine, trial));
    const setTokens = results.reduce((sum, r) => sum + r.tokens, 0);
    tokens += setTokens;
    summaries[name] = summarize(results);
    details[name] = results;
    console.error(`${name}: ${trials.length} trials, ${setTokens} tokens in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  const seconds = (performance.now() - started) / 1000;

  const homework = summaries.homework as SetSummary;
  const probe = summaries.probe as SetSummary;
  const rows = MEASURES.map((m) => {
    const t = TARGETS[m];
    return [
      t.label,
      `${t.op === '>=' ? '≥' : '≤'} ${pct(t.value).replace('.0 ', ' ')}`,
      pct(homework.rates[m]),
      pct(probe.rates[m]),
      homework.pass[m] && probe.pass[m] ? 'yes' : 'NO',
    ];
  });
  const header = ['measure', 'target', `homework (${homework.trials})`, `probe (${probe.trials})`, 'met'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
  console.log(
    `\nmarkers (homework): ${Object.entries(homework.markerRates)
      .map(([k, v]) => `${k} ${pct(v)}`)
      .join(', ')}` +
      `\ntruncated at ${MAX_TOKENS} tokens: homework ${pct(homework.truncatedRate)}, probe ${pct(probe.truncatedRate)}` +
      `\n${SEEDS} seeds, ${tokens} generated tokens in ${seconds.toFixed(0)} s (${(tokens / seconds).toFixed(0)} tok/s, batch ≤ ${CONCURRENCY}, ${args.threads ?? ortThreads()} ORT thread(s))`,
  );

  mkdirSync(join(args.out, '..'), { recursive: true });
  writeFileSync(
    args.out,
    `${JSON.stringify(
      {
        bench: 'policy',
        date: new Date().toISOString(),
        model: { dir: args.model, baseSha256: engine.info.baseSha256, manifest },
        sampling: { temperature: 0.6, topP: 0.95, topK: 20, maxTokens: MAX_TOKENS },
        seeds: SEEDS,
        targets: TARGETS,
        homework,
        probe,
        allTargetsMet: MEASURES.every((m) => homework.pass[m] && probe.pass[m]),
        seconds,
        generatedTokens: tokens,
        trials: details,
      },
      null,
      1,
    )}\n`,
  );
  console.log(`wrote ${args.out}`);
}

await main();
