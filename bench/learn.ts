/**
 * bench:learn — does the trainer learn, and what does it cost?
 *
 * On-policy, the way the embedded recipe trains: each optimizer step takes
 * `--batch` homework tasks in order, asks the engine (with the latest
 * candidate loaded) for the first reply, judges it with the pass criterion,
 * lets the scripted student react, has the rule PRM and hint judge read the
 * reaction, dispatches (docs/design.md, How a judged turn trains) and trains one step on the judged turns.
 * After every step the pinned probe set is sampled with fixed seeds (the
 * student's own first message, no hint) and scored: pass, clean, gold rate,
 * mean violations. Three variants side by side from the same start: both
 * terms, RL only, OPD only. The trainer's tokens/s and its matrix-product
 * throughput are reported against an ORT MatMul peak measured in this run.
 *
 * Prints a table and writes bench/results/learn.json.
 *
 *   npm run bench:learn -- [--steps 8] [--batch 16] [--window 16] [--lr 1e-2] [--schedule linear|constant] [--kl 0.1]
 *     [--w-rl 0.25] [--w-opd 1] [--rank 16] [--alpha 32] [--targets q,k,v,o,gate,up,down] [--variants both,rl-only,opd-only]
 *     [--probe 24] [--probe-seeds 3] [--seed 1] [--clip 1] [--model DIR] [--threads 2] [--out FILE] [--dump FILE.jsonl]
 *
 * Tuning notes (KL means the k3 estimate on the sampled token until the note on the
 * exact KL below), on a stage-2 proxy of the policy (gold only ~5 %, so pass is capped
 * there; 8 steps × 16 first replies, rank 16 on all seven modules, Adam):
 * - lr 2e-3 constant, no KL: style learned by step 6 (violations 5.0 → 0.13), then
 *   collapse at steps 7–8 (answered 100 % → 29 %, replies run to max_tokens). Nearly
 *   every early reply is rejected, so PG (reward −1, no baseline by design) pushes
 *   down every sampled token, the `<|end|>` token included.
 * - lr 2e-3 linear decay, KL 0.3: no collapse but too slow (violations 5.0 → 2.5).
 * - lr 3e-3 linear decay, KL 0.1: violations 5.0 → 0.04, clean 4 % → 83 %, answered
 *   100 % throughout, reply length stable: the default.
 * - same, RL only: style learned but the collapse again (answered → 38 %, KL 3.1);
 *   OPD only: no collapse but slow (violations 5.0 → 2.5). Together the OPD term
 *   (the hinted teacher also ends its reply) keeps the stop decision that PG erodes.
 * On the longer-trained stage-2 build (700 steps; style more entrenched, gold still ~5 %):
 * - lr 3e-3 linear, KL 0.1: too slow (violations 5.3 → 4.1, clean 0 %).
 * - lr 8e-3 linear, KL 0.1: clean 0 → 42 %, violations → 1.0, no collapse.
 * - lr 1.2e-2 linear, KL 0.1: clean 79 % at step 6, then the collapse (answered 67 %, KL 1.6).
 * - lr 1e-2 linear, KL 0.3: clean 0 → 75 %, answered 100 %, KL ≤ 0.25: the default then.
 * On the committed 2000-step build (gold ~95 %; 24 probe problems × 3 seeds):
 * - lr 1e-2 linear, KL 0.3, w_rl 1: pass 0 → 67 % at step 4, 82 % at 8; gold 96 → 79–83 %.
 * - OPD only: pass 0 → 88 % at step 5, gold 96 → 85–90 %; RL only: no style, gold → 38 %
 *   (every early reply is rejected, so PG pushes down every sampled token, digits included).
 * - LoRA on q,k,v,o only: pass 75–79 % at 7–8, gold ≥ 86 %; v,o or q,v only: no style in 8 steps;
 *   lr 5e-3 / KL 1–3 / rank 4: slower or no style, gold still dips.
 * - Gold is lost twice with w_rl 1: while still markdown (96 → 89 % by step 2: PG with reward −1
 *   and no baseline pushes every sampled token down), and once clean (the student's +1 for a clean
 *   reply reinforces its wrong numbers too). w_rl 0.25 (the recipe's): pass 57 % at step 3, 90 % at
 *   4, gold 89–92 % (seed 1) / 85–90 % (seed 2). w_rl 0.1: no better (83 %). Exact KL instead of k3
 *   on-policy, Adam eps 1e-4, beta2 0.999, lr 7e-3 with w_rl 0.25: all within the same 85–92 %.
 * - The KL term made exact (KL(π‖base) over the vocabulary; k3 on the sampled token exploded
 *   on the recipe's off-policy replies), with w_rl 0.25: coefficient 0.3 holds the first reply
 *   at the base's markdown (pass 60 % at step 4, back to 19 % by 8); 0.03 lets gold settle at
 *   85–89 %; 0.1 (the default): pass 92–93 % from step 4 and gold 92–94 % there — the KL keeps
 *   the tokens after the style decision at the base's — with one dip at the step the style
 *   flips (step 3: pass 64 %, gold 85 %, replies half markdown, half prose).
 * - Exact KL 0.15 (what the recipe runs, chosen by bench:recipe): pass 57 % at step 3, 82–88 %
 *   after, gold 83–88 % from step 3 on — worse here than 0.1 on both counts, so the bench keeps 0.1.
 * - --batch 4 learns the style as fast per step (pass 88 % at step 4, only 16 replies), then drifts
 *   (gold 74 % by step 10): the number of steps, not of replies, sets the pace.
 * Why gold dipped at the flip (--dump, every probe reply): the step-3 replies that
 * lost gold were plain ones (84 % gold against 96 % for markdown), on a few problems
 * each time (a swapped operand, a step skipped) — the plain prose the policy
 * inherits from the base after the student's own message, which the base had
 * rarely been trained on (4 % of its first replies; forced plain opener, no hint:
 * gold 0.86–0.93). The committed build's second stage trains that continuation
 * with the opener left out of the loss (tools/model/README.md, "Stages"):
 * - stage 2 of 400 steps at lr 3e-4: the flip is cleaner (clean 99 % at step 3) but
 *   gold 86–90 % after it, no better;
 * - 1200 steps at lr 1e-3 (committed): pass 0 → 92 % at step 3, 99 % at 4; gold
 *   94 → 97–99 %, never below the base. OPD only: 79 % at step 3, gold ≥ 92 %.
 *   Pass then slides to 79 % by step 8: whole replies go back to markdown. It is the KL
 *   term: once nearly every reply is accepted the OPD term is ~0, and KL(π‖base) pulls
 *   the opener back toward the base's. With --kl 0: pass 99 % at step 3 and 96–99 %
 *   through step 8, gold 93–99 %. The bench keeps 0.1 (as the recipe keeps 0.15, where
 *   KL 0 adapted later: 8, 6, 6, 7, 7 against 4, 4, 4, 6, 4 with more regressions).
 * Adam normalises the step size, so the KL coefficient shapes the direction of an
 * update (toward the base's token choices) more than its size; the decay keeps the
 * last steps from overshooting into the collapse.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { problemSeed } from '../src/core/gate/probeRunner';
import { judgeProbeReply, probeMetrics } from '../src/core/gate/probeMetrics';
import type { ProbeMetrics } from '../src/core/gate/probeMetrics';
import { createRuleHintJudge, createRulePrm } from '../src/core/judge/ruleJudge';
import { composeTurnJudge } from '../src/core/judge/turnJudge';
import { startEmbeddedEngine } from '../src/backends/embedded/embeddedPolicy';
import { parseTaskSet } from '../src/core/tasks/task';
import { LORA_MODULES, moduleDims, type LoraModule } from '../src/core/weights/policyConfig';
import { WeightStore } from '../src/core/weights/weightStore';
import { CandidateTrainer } from '../src/backends/embedded/trainer/candidateTrainer';
import { LoraParams } from '../src/backends/embedded/trainer/loraParams';
import { LoraTrainer } from '../src/backends/embedded/trainer/loraTrainer';
import { DEFAULT_OBJECTIVE } from '../src/backends/embedded/trainer/objective';
import { runOnPolicySteps, SIGNAL_VARIANTS, type SignalVariant } from './learn/onPolicySteps';
import { loadTrainerModel } from '../src/backends/embedded/trainer/trainerModel';
import { Tokenizer } from '../src/backends/embedded/engine/tokenizer';
import { measureMatmulPeak } from './learn/matmulPeak';
import { forwardFlops, gradFlops } from './learn/trainerFlops';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const { values: args } = parseArgs({
  options: {
    steps: { type: 'string', default: '8' },
    batch: { type: 'string', default: '16' },
    window: { type: 'string' },
    // Tuned (see the notes above): lr 1e-2 decayed linearly over the steps, exact KL 0.1 (the recipe runs 0.15: see the notes).
    lr: { type: 'string', default: '1e-2' },
    schedule: { type: 'string', default: 'linear' },
    kl: { type: 'string', default: '0.1' },
    // The embedded recipe's weights (recipes/embedded-gsm8k-style.yaml); the reference's are 1 and 1.
    'w-rl': { type: 'string', default: '0.25' },
    'w-opd': { type: 'string', default: '1' },
    clip: { type: 'string', default: '1' },
    rank: { type: 'string', default: '16' },
    alpha: { type: 'string', default: '32' },
    targets: { type: 'string', default: LORA_MODULES.join(',') },
    variants: { type: 'string', default: 'both,rl-only,opd-only' },
    probe: { type: 'string', default: '24' },
    // Replies per probe problem, each on its own fixed seed: 24 problems × 3 seeds = 72
    // replies, so one reply moves a rate by 1.4 points rather than 4.2.
    'probe-seeds': { type: 'string', default: '3' },
    seed: { type: 'string', default: '1' },
    'probe-seed': { type: 'string', default: '4242' },
    model: { type: 'string', default: join(ROOT, 'assets/models/policy') },
    threads: { type: 'string', default: '2' },
    out: { type: 'string', default: join(ROOT, 'bench/results/learn.json') },
    // Every probe reply of every step as JSON lines, for reading where gold is lost.
    dump: { type: 'string' },
  },
});

const num = (name: keyof typeof args): number => {
  const v = Number(args[name]);
  if (!Number.isFinite(v)) throw new Error(`--${name} must be a number, got ${String(args[name])}`);
  return v;
};

const STEPS = num('steps');
const BATCH = num('batch');
/** Absent: each step trains on its own batch's samples only. */
const WINDOW = args.window === undefined ? undefined : num('window');
const LR = num('lr');
const THREADS = num('threads');
const SEED = num('seed');
const PROBE_SEED = num('probe-seed');
const PROBE_SEEDS = num('probe-seeds');
const TARGET_PASS = 0.6;
const MAX_GOLD_DROP = 0.05;
const targets = String(args.targets)
  .split(',')
  .map((t) => t.trim().replace(/_proj$/, ''))
  .map((t) => {
    const m = LORA_MODULES.find((x) => x === t);
    if (m === undefined) throw new Error(`--targets: unknown module ${t}`);
    return m;
  }) as LoraModule[];
const variants = String(args.variants)
  .split(',')
  .map((v) => {
    const found = SIGNAL_VARIANTS.find((x) => x === v.trim());
    if (found === undefined || found === 'reward-inverted') throw new Error(`--variants: unknown variant ${v}`);
    return found;
  }) as SignalVariant[];
const schedule = String(args.schedule);
if (schedule !== 'constant' && schedule !== 'linear') throw new Error('--schedule must be constant or linear');
const lrAt = (step: number): number => (schedule === 'linear' ? (LR * (STEPS - step + 1)) / STEPS : LR);

const SAMPLING = { temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 256 };
const PROBE_SAMPLING = { temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 384 };

interface Row {
  variant: string;
  step: number;
  pass: number;
  clean: number;
  gold: number;
  answered: number;
  violations: number;
  meanChars: number;
  rolloutPass: number | null;
  samples: number | null;
  loss: number | null;
  pg: number | null;
  opd: number | null;
  kl: number | null;
  gradNorm: number | null;
  trainSeconds: number | null;
  trainTokens: number | null;
  gflops: number | null;
  /** Two probe replies of this step, for reading what the numbers mean. */
  examples?: Array<{ task: string; gold: number; accepted: boolean; reason: string | null; text: string }>;
}

interface VariantSummary {
  probe_pass_before: number;
  probe_pass_after: number;
  clean_after: number;
  gold_before: number;
  gold_after: number;
  gold_min_over_steps: number;
  steps: number;
  reached_target: boolean;
  gold_within_5_points: boolean;
  trainer_tokens_per_s: number;
  trainer_gflops: number;
  trainer_fraction_of_peak: number;
  train_seconds: number;
  rollout_seconds: number;
  curve: Row[];
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`.padStart(6);
const fmt = (x: number | null, digits = 3) => (x === null ? '—' : x.toFixed(digits));

function printTable(rows: readonly Row[]): void {
  console.log(
    ['variant', 'step', 'pass', 'clean', 'gold', 'answ', 'viol', 'chars', 'roll-pass', 'n', 'loss', 'pg', 'opd', 'kl', '|g|', 'train s', 'GFLOP/s']
      .map((h, i) => (i < 1 ? h.padEnd(9) : h.padStart(i < 2 ? 4 : 7)))
      .join(' '),
  );
  for (const r of rows) {
    console.log(
      [
        r.variant.padEnd(9),
        String(r.step).padStart(4),
        pct(r.pass).padStart(7),
        pct(r.clean).padStart(7),
        pct(r.gold).padStart(7),
        pct(r.answered).padStart(7),
        r.violations.toFixed(2).padStart(7),
        r.meanChars.toFixed(0).padStart(7),
        (r.rolloutPass === null ? '—' : pct(r.rolloutPass)).padStart(7),
        String(r.samples ?? '—').padStart(7),
        fmt(r.loss).padStart(7),
        fmt(r.pg).padStart(7),
        fmt(r.opd).padStart(7),
        fmt(r.kl).padStart(7),
        fmt(r.gradNorm, 2).padStart(7),
        fmt(r.trainSeconds, 1).padStart(7),
        fmt(r.gflops, 1).padStart(7),
      ].join(' '),
    );
  }
}

async function main(): Promise<void> {
  const modelDir = String(args.model);
  const homework = parseTaskSet(JSON.parse(readFileSync(join(ROOT, 'assets/homework/homework.json'), 'utf8')), 'homework.json').tasks;
  const probeTasks = parseTaskSet(JSON.parse(readFileSync(join(ROOT, 'assets/homework/probe.json'), 'utf8')), 'probe.json').tasks.slice(0, num('probe'));
  const tokenizer = Tokenizer.fromJson(JSON.parse(readFileSync(join(modelDir, 'tokenizer.json'), 'utf8')));
  const model = await loadTrainerModel(modelDir, { threads: THREADS });
  const shape = model.shape;
  const engine = await startEmbeddedEngine({ modelDir, env: { GATELAB_ORT_THREADS: String(THREADS) } });
  const judge = composeTurnJudge(createRulePrm(), createRuleHintJudge());
  // The gate's probe, with the requests sent together so the engine can batch them
  // (same messages, sampling and per-problem seeds as EngineProbeSampler; same metrics).
  const probe = async (adapter: { version: string; sha256: string; path: string } | null, probeLabel: string): Promise<ProbeMetrics> => {
    const expected = adapter?.version ?? 'base';
    if ((await engine.client.setAdapter(adapter)) !== expected) throw new Error(`the engine did not load ${expected}`);
    const draws = probeTasks.flatMap((task, i) => Array.from({ length: PROBE_SEEDS }, (_, k) => ({ task, seed: problemSeed(PROBE_SEED + k, i) })));
    const replies = await Promise.all(
      draws.map(async ({ task, seed }) => {
        const r = await engine.client.generate({
          messages: [{ role: 'user', content: task.firstMessage }],
          sampling: { temperature: PROBE_SAMPLING.temperature, topP: PROBE_SAMPLING.top_p, topK: PROBE_SAMPLING.top_k, maxTokens: PROBE_SAMPLING.max_tokens },
          seed,
          logprobsTopK: 0,
        });
        if (r.version !== expected) throw new Error(`a probe reply came from ${r.version}, expected ${expected}`);
        return judgeProbeReply({ taskId: task.id, gold: task.answer, seed, text: r.text, finishReason: r.finishReason, completionTokens: r.completionTokens });
      }),
    );
    if (args.dump !== undefined) {
      const lines = replies.map((r) =>
        JSON.stringify({
          at: probeLabel,
          task: r.taskId,
          seed: r.seed,
          gold: r.gold,
          goldAt: r.verdict.goldAt,
          accepted: r.verdict.accepted,
          reason: r.verdict.reason,
          text: r.text,
        }),
      );
      appendFileSync(String(args.dump), `${lines.join('\n')}\n`);
    }
    lastProbeExamples = replies
      .slice(0, 2)
      .map((r) => ({ task: r.taskId, gold: r.gold, accepted: r.verdict.accepted, reason: r.verdict.reason, text: r.text.slice(0, 600) }));
    return probeMetrics(replies);
  };
  let lastProbeExamples: Array<{ task: string; gold: number; accepted: boolean; reason: string | null; text: string }> = [];
  const scratch = mkdtempSync(join(tmpdir(), 'gatelab-bench-learn-'));
  const started = performance.now();
  try {
    const d = shape.hiddenSize;
    const f = shape.intermediateSize;
    const peak = await measureMatmulPeak(THREADS, [
      { m: 4096, k: d, n: d },
      { m: 4096, k: d, n: f },
      { m: 4096, k: f, n: d },
      { m: 4096, k: d, n: shape.vocabSize },
    ]);
    console.log(
      `ORT MatMul peak (${THREADS} threads): ${peak.gflops.toFixed(1)} GFLOP/s (${peak.shapes.map((s) => `${s.m}x${s.k}x${s.n} ${s.gflops.toFixed(1)}`).join(', ')})`,
    );

    const base = await probe(null, 'base');
    console.log(`base: pass ${pct(base.pass_rate)} clean ${pct(base.clean_rate)} gold ${pct(base.gold_rate)} violations ${base.mean_violations.toFixed(2)}`);
    const baseExamples = lastProbeExamples;
    const baseRow = (variant: string): Row => ({
      examples: baseExamples,
      variant,
      step: 0,
      pass: base.pass_rate,
      clean: base.clean_rate,
      gold: base.gold_rate,
      answered: base.answered_rate,
      violations: base.mean_violations,
      meanChars: base.mean_chars,
      rolloutPass: null,
      samples: null,
      loss: null,
      pg: null,
      opd: null,
      kl: null,
      gradNorm: null,
      trainSeconds: null,
      trainTokens: null,
      gflops: null,
    });

    const rows: Row[] = [];
    const perVariant: Record<string, { rows: Row[]; trainSeconds: number; trainTokens: number; flops: number; rolloutSeconds: number }> = {};
    const lora = { rank: num('rank'), alpha: num('alpha'), targets };
    for (const variant of variants) {
      const trainer = new LoraTrainer(
        model.graph,
        LoraParams.init(shape, lora, SEED),
        {
          objective: { ...DEFAULT_OBJECTIVE, klCoef: num('kl'), wRl: num('w-rl'), wOpd: num('w-opd') },
          optimizer: { lr: LR, betas: [0.9, 0.98], eps: 1e-8, weightDecay: 0.1, maxGradNorm: num('clip') },
          maxTokensPerCall: 2048,
        },
        0,
        model.forward,
      );
      const candidates = new CandidateTrainer(trainer, new WeightStore(join(scratch, variant)), { sha256: model.baseSha256, nameOrPath: modelDir });
      const mine: Row[] = [baseRow(variant)];
      const totals = { rows: mine, trainSeconds: 0, trainTokens: 0, flops: 0, rolloutSeconds: 0 };
      perVariant[variant] = totals;
      const taken = await runOnPolicySteps({
        rollout: { engine: engine.client, tokenizer, judge, sampling: SAMPLING, topK: 4 },
        trainer: candidates,
        tasks: homework,
        batch: BATCH,
        ...(WINDOW === undefined ? {} : { window: WINDOW }),
        steps: STEPS,
        variant,
        seed: SEED,
        lr: lrAt,
        afterStep: async (step) => {
          const m = await probe({ version: step.candidate.version, sha256: step.candidate.sha256, path: step.candidate.path }, `${variant} ${step.step}`);
          const flops = step.report.graphCalls.reduce(
            (n, c) => n + (c.kind === 'grad' ? gradFlops(shape, lora.rank, c.batch, c.time) : forwardFlops(shape, lora.rank, c.batch, c.time)),
            0,
          );
          totals.trainSeconds += step.report.seconds;
          totals.trainTokens += step.report.tokens;
          totals.flops += flops;
          totals.rolloutSeconds += step.rolloutSeconds;
          const row: Row = {
            variant,
            step: step.step,
            pass: m.pass_rate,
            clean: m.clean_rate,
            gold: m.gold_rate,
            answered: m.answered_rate,
            violations: m.mean_violations,
            meanChars: m.mean_chars,
            rolloutPass: step.rolloutPass,
            samples: step.samples,
            loss: step.report.loss,
            pg: step.report.pg,
            opd: step.report.opd,
            kl: step.report.kl,
            gradNorm: step.report.gradNorm,
            trainSeconds: step.report.seconds,
            trainTokens: step.report.tokens,
            gflops: flops / step.report.seconds / 1e9,
            examples: lastProbeExamples,
          };
          mine.push(row);
          printTable([row]);
        },
      });
      if (taken.length < STEPS) console.log(`${variant}: stopped after step ${taken.length}: no judged turn of the next batch trains under ${variant}`);
      rows.push(...mine);
    }

    console.log('');
    printTable(rows);

    const summary: Record<string, VariantSummary> = Object.fromEntries(
      Object.entries(perVariant).map(([variant, t]): [string, VariantSummary] => {
        const trained = t.rows.slice(1);
        const reached = trained.find((r) => r.pass >= TARGET_PASS);
        const after = reached ?? (trained.at(-1) as Row);
        const minGold = Math.min(...trained.map((r) => r.gold));
        return [
          variant,
          {
            probe_pass_before: base.pass_rate,
            probe_pass_after: after.pass,
            clean_after: after.clean,
            gold_before: base.gold_rate,
            gold_after: after.gold,
            gold_min_over_steps: minGold,
            steps: after.step,
            reached_target: reached !== undefined,
            gold_within_5_points: minGold >= base.gold_rate - MAX_GOLD_DROP - 1e-9,
            trainer_tokens_per_s: t.trainTokens / t.trainSeconds,
            trainer_gflops: t.flops / t.trainSeconds / 1e9,
            trainer_fraction_of_peak: t.flops / t.trainSeconds / 1e9 / peak.gflops,
            train_seconds: t.trainSeconds,
            rollout_seconds: t.rolloutSeconds,
            curve: t.rows,
          },
        ];
      }),
    );
    const main = summary[variants[0] as string] as VariantSummary;
    console.log('');
    console.log('variant    pass before→after (steps)  gold before→after (min)  target  gold≤5pt  tok/s   GFLOP/s  of peak');
    for (const [variant, s] of Object.entries(summary)) {
      console.log(
        `${variant.padEnd(10)} ${pct(s.probe_pass_before)} → ${pct(s.probe_pass_after)} (${String(s.steps).padStart(1)})   ` +
          `${pct(s.gold_before)} → ${pct(s.gold_after)} (${pct(s.gold_min_over_steps)})  ` +
          `${s.reached_target ? 'yes' : 'no '}     ${s.gold_within_5_points ? 'yes' : 'no '}     ${s.trainer_tokens_per_s.toFixed(0).padStart(5)}  ${s.trainer_gflops.toFixed(1).padStart(7)}  ${pct(s.trainer_fraction_of_peak)}`,
      );
    }
    const result = {
      bench: 'learn',
      date: new Date().toISOString(),
      wall_seconds: (performance.now() - started) / 1000,
      probe_pass_before: main.probe_pass_before,
      probe_pass_after: main.probe_pass_after,
      gold_before: main.gold_before,
      gold_after: main.gold_after,
      steps: main.steps,
      main_variant: variants[0],
      targets: { probe_pass_after: TARGET_PASS, max_gold_drop: MAX_GOLD_DROP, within_steps: STEPS },
      config: {
        steps: STEPS,
        batch: BATCH,
        window: WINDOW ?? null,
        lr: LR,
        schedule,
        kl_coef: num('kl'),
        w_rl: num('w-rl'),
        w_opd: num('w-opd'),
        max_grad_norm: num('clip'),
        lora,
        seed: SEED,
        probe_seed: PROBE_SEED,
        probe_seeds: PROBE_SEEDS,
        probe_problems: probeTasks.length,
        sampling: SAMPLING,
        probe_sampling: PROBE_SAMPLING,
        threads: THREADS,
        model_dir: modelDir,
        model_base_sha256: model.baseSha256,
        lora_parameters: LoraParams.init(shape, lora, SEED).parameterCount,
        lora_module_dims: Object.fromEntries(targets.map((m) => [m, moduleDims(shape, m)])),
      },
      matmul_peak_gflops: peak.gflops,
      matmul_shapes: peak.shapes,
      base,
      variants: summary,
    };
    mkdirSync(dirname(String(args.out)), { recursive: true });
    writeFileSync(String(args.out), `${JSON.stringify(result, null, 2)}\n`);
    console.log(`\nwrote ${String(args.out)}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    await engine.client.close();
    await model.release();
  }
}

await main();
