/**
 * bench:personalization — does live mode learn a user's preference from
 * their conversations? (OpenClaw-RL's personalization setting: Qwen3-4B went
 * from a preference score of 0.17 to 0.81 in 16 interactions.)
 *
 * Live mode (`startLiveMode`, what `gatelab live` runs) on a recipe; a
 * scripted user (bench/personalizationUser.ts) with one stated preference —
 * plain prose, no markdown — talks to its gateway through the official
 * `openai` client. Each interaction is one conversation about one homework
 * problem from the recipe's own task file, delimited with OpenClaw-RL's
 * headers (`X-Session-Id`, `X-Turn-Type: main`, `X-Session-Done` on its last
 * request): the user asks; a reply with markdown draws a complaint that names
 * it and asks for plain sentences (the rule PRM's −1, its hindsight the hint),
 * up to `--complaints` of them; a plain reply draws the save request (+1),
 * which ends the conversation. The reply to a conversation's last request has
 * no next state and never trains, so it is capped at `--last-tokens`.
 *
 * A recipe that states a preference (`--models smollm2-preference`: at most 25
 * words) is talked to by that recipe's own scripted user instead: a reply that
 * breaks the rule or misses the floor draws a complaint with the user's
 * statement as its hindsight, an accepted one the thanks (+1); its rate is the
 * rule met, and `gold` the floor met (bench/personalizationUser.ts).
 *
 * Preference-met rate: the fraction of replies with something in them and no
 * markdown by the pass criterion's style markers, on a fixed evaluation set
 * (the last `--eval` problems of the recipe's session tasks, never talked
 * about; the user's first message, which does not state the preference), at
 * 0 interactions and after every `--every`. Evaluation goes through the
 * gateway to the serving engine, i.e. it measures what the user gets: serving
 * changes only when a candidate has passed the gate (verify, three probe
 * rounds) and the bench, as the person, confirmed it through the control
 * endpoint (`askLiveRun`). Evaluation requests are OpenClaw-RL side turns
 * (`X-Turn-Type: side`): served and logged, never part of a session, never
 * judged, never trained.
 *
 * After each conversation the user waits until its session is journaled, the
 * trainer has stepped on every complete batch and the gate has decided every
 * candidate (confirming the ones that reach a person): what serves the next
 * conversation is then a function of the seeds, not of how fast this machine
 * is. (A real user does not wait; the wait is what makes the curve
 * reproducible.)
 *
 * Control arm: the same script, seeds and prompts with the recipe's
 * `arm: control` (the product's own control arm: every conversation is
 * served, judged and journaled, but the trainer never steps, so nothing
 * reaches the gate and the base serves throughout). Reported learning is
 * trained minus control at each checkpoint; each checkpoint's evaluation uses
 * its own seeds, the same in both arms, so the control column also shows how
 * much the rate moves by sampling alone.
 *
 * Prints a table per model and writes bench/results/personalization-<model>.json. SIGINT or
 * SIGTERM stops after the conversation in progress and writes what was
 * measured with `partial: true`.
 *
 *   npm run bench:personalization -- [--models embedded,smollm2,smollm2-preference] [--arms trained,control]
 *     [--interactions 16] [--every 4] [--eval 16] [--seed 1] [--complaints 2]
 *     [--max-tokens N] [--last-tokens 16] [--probe-problems N] [--probe-max-tokens N]
 *     [--eval-concurrency 4] [--keep DIR] [--out FILE (one model)]
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import { parseDocument } from 'yaml';
import type { JournalEvent } from '../src/core/journal/journalEvents';
import type { RunJournal } from '../src/core/journal/runJournal';
import { resolveRecipePath } from '../src/core/recipe/loadRecipe';
import type { Arm } from '../src/core/recipe/recipeSchema';
import { createRng } from '../src/core/tasks/rng';
import type { Task } from '../src/core/tasks/task';
import { startLiveMode, type LiveMode } from '../src/run/live/liveMode';
import { loadRunRecipe } from '../src/run/recipeSchemas';
import { loadRunTasks } from '../src/run/runTasks';
import { askLiveRun, startControlServer } from '../src/surfaces/control/controlServer';
import { learningRows, markdownUser, preferenceMetRate, requestSeed, statedPreferenceUser, type Rate, type ScriptedUser } from './personalizationUser';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

const MODELS = {
  embedded: { recipe: 'recipes/embedded-gsm8k-style.yaml', label: 'embedded policy (ORT engine, TS trainer)' },
  smollm2: { recipe: 'recipes/smollm2-135m-cpu.yaml', label: 'SmolLM2-135M-Instruct (vLLM serving, torch trainer, CPU)' },
  'smollm2-preference': {
    recipe: 'recipes/smollm2-135m-preference.yaml',
    label: 'SmolLM2-135M-Instruct on its stated preference (vLLM serving, torch trainer, CPU)',
  },
} as const;
type ModelName = keyof typeof MODELS;

const { values: args } = parseArgs({
  options: {
    models: { type: 'string', default: 'embedded' },
    arms: { type: 'string', default: 'trained,control' },
    interactions: { type: 'string', default: '16' },
    every: { type: 'string', default: '4' },
    eval: { type: 'string', default: '16' },
    seed: { type: 'string', default: '1' },
    complaints: { type: 'string', default: '2' },
    'max-tokens': { type: 'string' },
    'last-tokens': { type: 'string', default: '16' },
    'probe-problems': { type: 'string' },
    'probe-max-tokens': { type: 'string' },
    'eval-concurrency': { type: 'string', default: '4' },
    keep: { type: 'string' },
    out: { type: 'string' },
  },
});

const positive = (name: string, text: string | undefined): number | undefined => {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer; got ${text}`);
  return n;
};
const models = args.models.split(',').map((m): ModelName => {
  if (!Object.hasOwn(MODELS, m)) throw new Error(`--models: ${m} is none of ${Object.keys(MODELS).join(', ')}`);
  return m as ModelName;
});
const arms = args.arms.split(',').map((a): Arm => {
  if (a !== 'trained' && a !== 'control') throw new Error(`--arms: ${a} is neither trained nor control`);
  return a;
});
const settings = {
  interactions: positive('interactions', args.interactions)!,
  every: positive('every', args.every)!,
  evalPrompts: positive('eval', args.eval)!,
  seed: positive('seed', args.seed)!,
  maxComplaints: positive('complaints', args.complaints)!,
  maxTokens: positive('max-tokens', args['max-tokens']),
  lastTokens: positive('last-tokens', args['last-tokens'])!,
  probeProblems: positive('probe-problems', args['probe-problems']),
  probeMaxTokens: positive('probe-max-tokens', args['probe-max-tokens']),
  evalConcurrency: positive('eval-concurrency', args['eval-concurrency'])!,
};
if (args.out !== undefined && models.length > 1) throw new Error('--out names one file: give it with one model');
const work = args.keep ? path.resolve(args.keep) : mkdtempSync(path.join(tmpdir(), 'gatelab-bench-personalization-'));
mkdirSync(work, { recursive: true });

// A recipe that states a preference is talked to by its own user; any other by the plain-prose user.
const users = new Map<ModelName, ScriptedUser>();
for (const model of models) {
  const { preference } = (await loadRunRecipe(path.join(ROOT, MODELS[model].recipe))).recipe;
  users.set(model, preference === undefined ? markdownUser : statedPreferenceUser(preference));
}

let stopRequested = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopRequested) process.exit(130);
    stopRequested = true;
    process.stderr.write(`\n${signal}: stopping after the conversation in progress\n`);
  });
}

type Checkpoint = {
  interactions: number;
  /**
   * `gold`: replies that still answer their problem (the criterion's gold check, or the
   * stated preference's floor): a reply that met the preference by saying nothing shows here.
   * `breaks`: replies per kind of what broke the preference.
   */
  eval: Rate & { empty: number; gold: number; breaks: Record<string, number> };
  serving: string;
  judged_turns: number;
  trained_turns: number;
  trainer_steps: number;
  promotions: number;
  rejections: number;
  seconds: number;
};
type ConversationLog = { task: string; replies: number; complaints: number; satisfied: boolean; firstReplyBreaks: string[]; seconds: number };
/** `settings`: what this arm ran with (an arm kept from an earlier run may differ from the file's in the gate's probe settings). */
type ArmResult = { arm: Arm; partial: boolean; wall_seconds: number; settings: typeof settings; checkpoints: Checkpoint[]; conversations: ConversationLog[] };

/** The recipe as the bench runs it: paths made absolute, the probe set resized when asked. */
async function benchRecipe(model: ModelName, dir: string): Promise<{ file: string; maxTokens: number }> {
  const original = path.join(ROOT, MODELS[model].recipe);
  const loaded = await loadRunRecipe(original);
  const doc = parseDocument(readFileSync(original, 'utf8'));
  doc.setIn(['tasks', 'file'], resolveRecipePath(loaded, loaded.recipe.tasks.file));
  doc.setIn(['tasks', 'probe_file'], resolveRecipePath(loaded, loaded.recipe.tasks.probe_file));
  const modelDir = doc.getIn(['policy', 'model_dir']);
  if (typeof modelDir === 'string') doc.setIn(['policy', 'model_dir'], resolveRecipePath(loaded, modelDir));
  if (settings.probeProblems !== undefined) doc.setIn(['gate', 'probe', 'problems'], settings.probeProblems);
  if (settings.probeMaxTokens !== undefined) doc.setIn(['gate', 'probe', 'sampling', 'max_tokens'], settings.probeMaxTokens);
  const file = path.join(dir, `${model}.yaml`);
  writeFileSync(file, doc.toString());
  const sampling = doc.getIn(['policy', 'sampling', 'max_tokens']);
  return { file, maxTokens: settings.maxTokens ?? (typeof sampling === 'number' ? sampling : 256) };
}

const count = (events: readonly JournalEvent[], type: JournalEvent['type']): number => events.filter((e) => e.type === type).length;

/** Resolves on the journal's next event. */
function nextEvent(journal: RunJournal): { event: Promise<JournalEvent>; stop(): void } {
  let stop = (): void => undefined;
  const event = new Promise<JournalEvent>((resolve) => {
    stop = journal.onEvent((e) => {
      stop();
      resolve(e);
    });
  });
  return { event, stop: () => stop() };
}

/** Waits until `ready` holds over the journal's events (checked now and after every event). */
async function until(journal: RunJournal, ready: (events: readonly JournalEvent[]) => boolean): Promise<void> {
  for (;;) {
    const next = nextEvent(journal);
    if (ready(journal.events)) {
      next.stop();
      return;
    }
    await next.event;
  }
}

/**
 * Waits for the conversation just finished to be journaled, the trainer to
 * step on every complete batch, and the gate to decide every candidate; the
 * person confirms each candidate that passed its probe rounds.
 */
async function settle(live: LiveMode, sessions: number): Promise<void> {
  const { journal } = live.run;
  await until(journal, (events) => count(events, 'session-completed') >= sessions);
  await live.sessions.idle(); // the journaled session's turns are in the trainer feed
  await live.run.servingParts().feed.flush();
  const asked = new Set<string>();
  for (;;) {
    const next = nextEvent(journal);
    const open = new Set<string>();
    const awaiting = new Set<string>();
    for (const e of journal.events) {
      if (e.type === 'candidate-staged') open.add(e.id);
      if (e.type === 'candidate-awaiting-confirm') awaiting.add(e.id);
      if (e.type === 'candidate-promoted' || e.type === 'candidate-rejected' || e.type === 'candidate-superseded') {
        open.delete(e.id);
        awaiting.delete(e.id);
      }
    }
    if (open.size === 0) {
      next.stop();
      return;
    }
    for (const id of awaiting) {
      if (asked.has(id)) continue;
      asked.add(id);
      await askLiveRun(live.run.runDir, { action: 'confirm', id });
    }
    await next.event;
  }
}

/** The fixed evaluation set through the gateway as side turns (never judged, never trained). */
async function evaluate(
  user: ScriptedUser,
  client: OpenAI,
  model: string,
  tasks: readonly Task[],
  checkpoint: number,
  maxTokens: number,
): Promise<Checkpoint['eval']> {
  const replies: string[] = new Array<string>(tasks.length);
  let nextIndex = 0;
  const worker = async (): Promise<void> => {
    while (nextIndex < tasks.length) {
      const i = nextIndex++;
      const completion = await client.chat.completions.create(
        {
          model,
          messages: [{ role: 'user', content: tasks[i]!.firstMessage }],
          max_completion_tokens: maxTokens,
          seed: requestSeed(settings.seed, 'eval', checkpoint, i),
        },
        { headers: { 'X-Session-Id': 'personalization-eval', 'X-Turn-Type': 'side' } },
      );
      replies[i] = completion.choices[0]?.message.content ?? '';
    }
  };
  await Promise.all(Array.from({ length: Math.min(settings.evalConcurrency, tasks.length) }, worker));
  const breaks: Record<string, number> = {};
  for (const reply of replies) for (const kind of user.breaks(reply)) breaks[kind] = (breaks[kind] ?? 0) + 1;
  const gold = replies.filter((reply, i) => user.answers(reply, tasks[i]!)).length;
  return { ...preferenceMetRate(replies, user.meets), empty: replies.filter((r) => r.trim() === '').length, gold, breaks };
}

/** One conversation about one problem, as the scripted user holds it. */
async function converse(user: ScriptedUser, client: OpenAI, model: string, task: Task, index: number, maxTokens: number): Promise<ConversationLog> {
  const started = performance.now();
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: task.firstMessage }];
  const rng = createRng(requestSeed(settings.seed, 'talk', index, 1_000));
  let complaints = 0;
  let done = false;
  let firstReplyBreaks: string[] | undefined;
  let satisfied = false;
  for (let turn = 0; ; turn++) {
    const completion = await client.chat.completions.create(
      {
        model,
        messages,
        // The reply to the last request is never judged (no next state): only its length costs.
        max_completion_tokens: done ? settings.lastTokens : maxTokens,
        seed: requestSeed(settings.seed, 'talk', index, turn),
      },
      { headers: { 'X-Session-Id': `personalization-${index}`, 'X-Turn-Type': 'main', 'X-Session-Done': String(done) } },
    );
    const reply = completion.choices[0]?.message.content ?? '';
    firstReplyBreaks ??= user.breaks(reply);
    if (done) return { task: task.id, replies: turn + 1, complaints, satisfied, firstReplyBreaks, seconds: (performance.now() - started) / 1000 };
    const said = await user.reactTo(reply, { task, complaintsSoFar: complaints, maxComplaints: settings.maxComplaints, rng });
    if (said.kind === 'complaint') complaints++;
    else satisfied = true;
    done = said.done;
    messages.push({ role: 'assistant', content: reply }, { role: 'user', content: said.text });
  }
}

async function runArm(model: ModelName, arm: Arm, onCheckpoint: (partial: ArmResult) => void): Promise<ArmResult> {
  const dir = path.join(work, `${model}-${arm}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const { file, maxTokens } = await benchRecipe(model, dir);
  const user = users.get(model)!;
  const tasks = (await loadRunTasks(await loadRunRecipe(file))).sessions;
  const evalTasks = tasks.slice(-settings.evalPrompts);
  const talkTasks = tasks.slice(0, tasks.length - settings.evalPrompts);
  if (talkTasks.length < settings.interactions) {
    throw new Error(
      `${model}: ${tasks.length} tasks hold ${settings.evalPrompts} for evaluation and ${talkTasks.length} to talk about, fewer than --interactions`,
    );
  }
  const started = performance.now();
  const live = await startLiveMode(file, path.join(dir, 'run'), {
    overrides: { seed: settings.seed, arm },
    idleSeconds: 3600,
    onLog: (line) => process.stderr.write(`  [${model} ${arm}] ${line}\n`),
  });
  const control = await startControlServer(live.run);
  const result: ArmResult = { arm, partial: true, wall_seconds: 0, settings, checkpoints: [], conversations: [] };
  try {
    const client = new OpenAI({ baseURL: live.endpoint.baseUrl, apiKey: live.endpoint.token, maxRetries: 0, timeout: 1_800_000 });
    const checkpoint = async (interactions: number): Promise<void> => {
      const t = performance.now();
      const evalRate = await evaluate(user, client, live.endpoint.model, evalTasks, result.checkpoints.length, maxTokens);
      const events = live.run.journal.events;
      const completed = events.filter((e): e is Extract<JournalEvent, { type: 'session-completed' }> => e.type === 'session-completed');
      const promoted = events.filter((e): e is Extract<JournalEvent, { type: 'candidate-promoted' }> => e.type === 'candidate-promoted');
      result.checkpoints.push({
        interactions,
        eval: evalRate,
        serving: promoted.at(-1)?.pointer.version ?? 'base',
        judged_turns: completed.reduce((s, e) => s + (e.curve.judged_turns ?? 0), 0),
        trained_turns: completed.reduce((s, e) => s + e.samples.count, 0),
        trainer_steps: count(events, 'trainer-step'),
        promotions: promoted.length,
        rejections: count(events, 'candidate-rejected'),
        seconds: (performance.now() - t) / 1000,
      });
      result.wall_seconds = (performance.now() - started) / 1000;
      process.stderr.write(
        `  [${model} ${arm}] ${interactions} interactions: preference met ${evalRate.met}/${evalRate.total} (gold ${evalRate.gold}), promotions ${promoted.length}, serving ${result.checkpoints.at(-1)!.serving}\n`,
      );
      onCheckpoint(result);
    };
    await checkpoint(0);
    for (let i = 0; i < settings.interactions && !stopRequested; i++) {
      const log = await converse(user, client, live.endpoint.model, talkTasks[i]!, i, maxTokens);
      result.conversations.push(log);
      await settle(live, i + 1);
      if ((i + 1) % settings.every === 0 || i + 1 === settings.interactions) await checkpoint(i + 1);
    }
    result.partial = stopRequested;
  } finally {
    result.wall_seconds = (performance.now() - started) / 1000;
    await control.close();
    await live.close();
  }
  return result;
}

function modelEntry(model: ModelName, results: readonly ArmResult[], partial: boolean) {
  const trained = results.find((r) => r.arm === 'trained');
  const controlArm = results.find((r) => r.arm === 'control');
  const rates = (r: ArmResult | undefined) =>
    (r?.checkpoints ?? []).map((c) => ({ interactions: c.interactions, rate: c.eval.rate, promotions: c.promotions }));
  return {
    model: MODELS[model].label,
    recipe: MODELS[model].recipe,
    partial,
    finished_at: new Date().toISOString(),
    start: 'the recipe’s own model (no homework-tuned adapter was used as the start)',
    baseline_at_0: { trained: trained?.checkpoints[0]?.eval ?? null, control: controlArm?.checkpoints[0]?.eval ?? null },
    rows: learningRows(rates(trained), rates(controlArm)),
    arms: results,
  };
}

/** Each model's results in a file of its own (the two arms run hours apart on a CPU). */
function resultFile(model: ModelName): string {
  return args.out !== undefined ? path.resolve(args.out) : path.join(ROOT, 'bench', 'results', `personalization-${model}.json`);
}

function writeResults(model: ModelName, entry: ReturnType<typeof modelEntry>): void {
  const out = {
    bench: 'personalization',
    preference: users.get(model)!.preference,
    metric:
      'preference-met rate: the fraction of evaluation replies that meet the preference (with text; for plain prose, none of the pass criterion’s style markers; for a stated preference, its rule), on a fixed evaluation set at each checkpoint; gold: those that still answer (the gold answer, or the stated preference’s floor)',
    evaluation:
      'through the gateway to the serving engine (what the user gets: it changes only when a candidate passed the gate and was confirmed), as OpenClaw-RL side turns, which are never judged or trained',
    interaction: 'one conversation about one problem: the question, up to --complaints complaints with the retries they draw, and the closing request',
    wait: 'after each conversation the user waits for its session to be journaled, the trainer to step and the gate to decide (the bench confirms as the person), so the curve depends on the seeds, not on the machine’s speed',
    control_arm:
      'the recipe’s arm: control — the same script, seeds and prompts; every conversation is served, judged and journaled, but the trainer never steps, so the base serves throughout',
    settings,
    ...entry,
  };
  const file = resultFile(model);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
}

function printTable(model: ModelName, entry: ReturnType<typeof modelEntry>): void {
  console.log(`\n${MODELS[model].label}${entry.partial ? ' (partial)' : ''}`);
  console.log('interactions | trained | control | difference | promotions');
  for (const r of entry.rows) {
    const f = (x: number) => x.toFixed(3);
    console.log(
      `${String(r.interactions).padStart(12)} | ${f(r.trained).padStart(7)} | ${f(r.control).padStart(7)} | ${(r.difference >= 0 ? '+' : '') + f(r.difference)} | ${r.promotions}`,
    );
  }
  for (const arm of entry.arms) console.log(`  ${arm.arm}: ${arm.wall_seconds.toFixed(0)} s, ${arm.conversations.length} conversations`);
}

/**
 * The arms of an earlier result file that this run does not run, when they
 * held the same conversations and evaluation: the same seed, script and
 * evaluation settings. The gate's probe settings may differ: they touch only
 * an arm that stages candidates, and the control arm never does.
 */
function keptArms(model: ModelName): ArmResult[] {
  let earlier: { arms?: ArmResult[] };
  try {
    earlier = JSON.parse(readFileSync(resultFile(model), 'utf8')) as { arms?: ArmResult[] };
  } catch {
    return [];
  }
  const same = (a: typeof settings) =>
    a.seed === settings.seed &&
    a.every === settings.every &&
    a.evalPrompts === settings.evalPrompts &&
    a.maxComplaints === settings.maxComplaints &&
    a.maxTokens === settings.maxTokens &&
    a.lastTokens === settings.lastTokens;
  return (earlier.arms ?? []).filter((a) => a.arm === 'control' && !arms.includes(a.arm) && a.settings !== undefined && same(a.settings));
}

for (const model of models) {
  const done: ArmResult[] = keptArms(model);
  if (done.length > 0) process.stderr.write(`${model}: keeping the ${done.map((a) => a.arm).join(', ')} arm of ${resultFile(model)}\n`);
  for (const arm of arms) {
    if (stopRequested) break;
    process.stderr.write(`${model} ${arm}: starting live mode\n`);
    const result = await runArm(model, arm, (partial) => writeResults(model, modelEntry(model, [...done, partial], true)));
    done.push(result);
    writeResults(model, modelEntry(model, done, true));
  }
  const entry = modelEntry(model, done, stopRequested || done.some((r) => r.partial) || done.length < 2);
  writeResults(model, entry);
  printTable(model, entry);
}
if (!args.keep) rmSync(work, { recursive: true, force: true });
