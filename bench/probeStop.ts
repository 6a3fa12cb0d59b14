/**
 * bench:probe-stop — what stopping a probe reply once its verdict is settled
 * (docs/design.md, Probe rounds) saves, and that it changes no verdict.
 *
 * One vLLM probe engine on SmolLM2-135M, the recipe's probe set, preference and
 * probe sampling. Each round is a gate round (both sides at once: a random LoRA
 * adapter as the candidate, the base as serving), sampled twice on the same
 * seed: `stopped`, as the gate samples it, and `whole`, every reply decoded to
 * its end or the cap (the probe before the stop). The order alternates per
 * round, so neither arm always runs first on a warm or a busy machine.
 *
 * Reported per arm: the round's seconds, decoded tokens and answered rate; and
 * the pairs (same problem, side and seed) whose verdict differs — accepted, the
 * floor met, the preference broken — between the arms (goal: 0, since a reply
 * stopped as settled has the verdict every continuation gets).
 *
 *   npm run bench:probe-stop -- [--recipe recipes/smollm2-135m-preference.yaml] [--rounds 6] [--out FILE]
 *
 * Prints a table and writes bench/results/probe-stop.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { vllmPolicy } from '../src/backends/vllm/vllmPolicy';
import { judgeProbeReply, type ProbeReply } from '../src/core/gate/probeMetrics';
import { EngineProbeSampler, type RoundReplies } from '../src/core/gate/probeRunner';
import { replyCriterion } from '../src/core/preference/replyCriterion';
import { loadRecipe } from '../src/core/recipe/loadRecipe';
import { rolePlacement } from '../src/processes/devices/rolePlacement';
import { loadRunTasks } from '../src/run/runTasks';
import { writeRandomLoraAdapter } from '../tests/helpers/randomLoraAdapter';
import { recipePolicyForTests } from '../tests/helpers/vllmTestSetup';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    recipe: { type: 'string', default: join(root, 'recipes/smollm2-135m-preference.yaml') },
    rounds: { type: 'string', default: '6' },
    out: { type: 'string', default: join(root, 'bench/results/probe-stop.json') },
  },
});

type Arm = 'stopped' | 'whole';
type ArmTotals = { seconds: number[]; tokens: number; replies: number; answered: number; settled: number };

async function main(): Promise<void> {
  const loaded = await loadRecipe(args.recipe);
  const { recipe } = loaded;
  if (!recipe.preference) throw new Error(`${args.recipe} states no preference: nothing would settle early`);
  const criterion = replyCriterion(recipe.preference);
  const { probe: problems } = await loadRunTasks(loaded);
  const sampling = recipe.gate.probe.sampling;
  const work = await mkdtemp(join(tmpdir(), 'gatelab-bench-probe-stop-'));
  const policy = vllmPolicy(recipePolicyForTests(), (p) => p);
  const engine = await policy.startEngine({ role: 'probe', placement: rolePlacement('cpu') });
  try {
    const candidate = await writeRandomLoraAdapter(policy.modelDir, join(work, 'candidate'), 1, 0.05, 'v1');
    const samplers: Record<Arm, EngineProbeSampler> = {
      stopped: new EngineProbeSampler(engine.client, problems, sampling, criterion),
      whole: new EngineProbeSampler(engine.client, problems, sampling, {}),
    };
    const totals: Record<Arm, ArmTotals> = {
      stopped: { seconds: [], tokens: 0, replies: 0, answered: 0, settled: 0 },
      whole: { seconds: [], tokens: 0, replies: 0, answered: 0, settled: 0 },
    };
    let disagreements = 0;
    let pairs = 0;
    // A settled reply is the whole one's beginning, unless the two batches' arithmetic sampled another token.
    let settledPrefixes = 0;
    let settledPairs = 0;
    // A first round warms the engine (both versions loaded) and is not counted.
    await samplers.whole.sampleRound(candidate, null, 999);
    for (let r = 0; r < Number(args.rounds); r += 1) {
      const seed = 1000 + r;
      const order: Arm[] = r % 2 === 0 ? ['stopped', 'whole'] : ['whole', 'stopped'];
      const got = {} as Record<Arm, RoundReplies>;
      for (const arm of order) {
        const t0 = performance.now();
        got[arm] = await samplers[arm].sampleRound(candidate, null, seed);
        totals[arm].seconds.push((performance.now() - t0) / 1000);
        for (const reply of [...got[arm].candidate, ...got[arm].serving]) {
          totals[arm].tokens += reply.completionTokens;
          totals[arm].replies += 1;
          if (reply.finishReason === 'stop') totals[arm].answered += 1;
          if (reply.finishReason === 'settled') totals[arm].settled += 1;
        }
      }
      const verdicts = (replies: ProbeReply[]) =>
        replies.map((reply) => {
          const { verdict } = judgeProbeReply(reply, criterion);
          return [verdict.accepted, verdict.goldAt !== null, verdict.failures.includes('preference')].join('/');
        });
      for (const side of ['candidate', 'serving'] as const) {
        const a = verdicts(got.stopped[side]);
        const b = verdicts(got.whole[side]);
        a.forEach((v, i) => {
          pairs += 1;
          if (v !== b[i]) disagreements += 1;
          const stopped = got.stopped[side][i]!;
          if (stopped.finishReason !== 'settled') return;
          settledPairs += 1;
          if (got.whole[side][i]!.text.startsWith(stopped.text)) settledPrefixes += 1;
        });
      }
    }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const rows = (['whole', 'stopped'] as const).map((arm) => {
      const t = totals[arm];
      return {
        arm,
        round_seconds_mean: mean(t.seconds),
        round_seconds: t.seconds,
        tokens_per_reply: t.tokens / t.replies,
        answered_rate: t.answered / t.replies,
        settled_rate: t.settled / t.replies,
      };
    });
    const ratio = rows[1]!.round_seconds_mean / rows[0]!.round_seconds_mean;
    console.log(
      `\nbench:probe-stop — ${args.recipe}, ${problems.length} problems a side, max_tokens ${sampling.max_tokens}, ${args.rounds} rounds per arm, same seeds\n`,
    );
    console.log('arm     | round s (mean) | tokens / reply | answered | stopped as settled');
    console.log('--------|----------------|----------------|----------|-------------------');
    for (const r of rows) {
      console.log(
        `${r.arm.padEnd(7)} | ${r.round_seconds_mean.toFixed(1).padStart(14)} | ${r.tokens_per_reply.toFixed(1).padStart(14)} | ${r.answered_rate.toFixed(2).padStart(8)} | ${r.settled_rate.toFixed(2).padStart(18)}`,
      );
    }
    console.log(`\nstopped / whole round time: ${ratio.toFixed(2)}; verdicts that differ between the arms: ${disagreements} of ${pairs} pairs (goal 0)`);
    console.log(`settled replies that begin the whole arm's reply: ${settledPrefixes} of ${settledPairs}`);
    const out = {
      bench: 'probe-stop',
      recipe: args.recipe,
      problems: problems.length,
      max_tokens: sampling.max_tokens,
      rounds: Number(args.rounds),
      arms: rows,
      time_ratio: ratio,
      verdict_disagreements: disagreements,
      pairs,
      settled_prefixes: settledPrefixes,
      settled_pairs: settledPairs,
    };
    mkdirSync(dirname(args.out), { recursive: true });
    writeFileSync(args.out, `${JSON.stringify(out, null, 1)}\n`);
    console.log(`wrote ${args.out}`);
  } finally {
    await engine.client.close();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
