/**
 * `npm run bench:torch-trainer`: a real step of the torch trainer on
 * SmolLM2-135M-Instruct (LoRA r16 on the seven modules, RL + hinted OPD + KL,
 * AdamW), alone and as 2 data-parallel processes under torchrun: trained
 * tokens per second, achieved FLOP/s (torch's flop counter over one step)
 * against the matmul peak of the same threads measured in the same run, and
 * peak memory per process. Prints a table and writes
 * bench/results/torch-trainer.json. Needs `npm run setup:python`.
 *
 * Options: --samples N (default 4), --response-tokens N (48), --steps N (3 timed).
 *
 * The fourth and fifth rows are a long window (--long-samples 16 × --long-response-tokens 400,
 * one step and nothing else in its process, one thread): the trainer's peak memory where the [positions,
 * vocabulary] logits would dominate it (the trainer computes them in chunks of
 * positions and recomputes each chunk in the backward pass), without and with
 * gradient checkpointing (the recipe's trainer.gradient_checkpointing): the
 * decoder's activations are what remain.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { findModelFolder, findPythonEnvironment, torchWorkerSources } from '../src/processes/python/pythonEnvironment';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    samples: { type: 'string', default: '4' },
    'response-tokens': { type: 'string', default: '48' },
    steps: { type: 'string', default: '3' },
    'long-samples': { type: 'string', default: '16' },
    'long-response-tokens': { type: 'string', default: '400' },
    out: { type: 'string', default: join(root, 'bench/results/torch-trainer.json') },
  },
});

type Row = {
  processes: number;
  threadsPerProcess: number;
  device: string;
  samples: number;
  trainedTokensPerStep: number;
  sequenceTokensPerStep: number;
  stepSeconds: number;
  tokensPerSecond: number;
  /** null on the memory-only row (no flop counter in that process). */
  flopsPerStep: number | null;
  achievedFlops: number | null;
  matmulPeakFlops: number;
  fractionOfPeak: number | null;
  peakRssMiBPerProcess: number[];
  gradientCheckpointing: boolean;
  gpuMaxAllocatedMiB: number | null;
};

const { python } = findPythonEnvironment();
const modelDir = findModelFolder();
const sources = torchWorkerSources();
const work = mkdtempSync(join(tmpdir(), 'gatelab-bench-torch-'));
const rows: Row[] = [];
// 1 process on every core (torch's default threads), 1 process on one thread (the per-core view, and what
// a loaded machine gives), 2 processes under torchrun (which gives each rank OMP_NUM_THREADS=1).
type Config = { processes: number; threads?: number; samples: string; responseTokens: string; steps: string; gradientCheckpointing?: boolean };
const usual = { samples: values.samples, responseTokens: values['response-tokens'], steps: values.steps };
const configs: Config[] = [
  { processes: 1, ...usual },
  { processes: 1, threads: 1, ...usual },
  { processes: 2, ...usual },
  { processes: 1, threads: 1, samples: values['long-samples'], responseTokens: values['long-response-tokens'], steps: '0' },
  { processes: 1, threads: 1, samples: values['long-samples'], responseTokens: values['long-response-tokens'], steps: '0', gradientCheckpointing: true },
];
for (const [i, { processes, threads, samples, responseTokens, steps, gradientCheckpointing }] of configs.entries()) {
  const out = join(work, `config-${i}.json`);
  const module = ['-m', 'gatelab_torch.bench', modelDir, out, samples, responseTokens, steps, ...(gradientCheckpointing ? ['--gradient-checkpointing'] : [])];
  const args = processes === 1 ? module : ['-m', 'torch.distributed.run', '--standalone', `--nproc-per-node=${processes}`, ...module];
  console.log(
    `running ${processes} process${processes > 1 ? 'es' : ''}${threads ? ` × ${threads} thread` : ''}, ${samples} samples × ${responseTokens} response tokens${gradientCheckpointing ? ', gradient checkpointing' : ''} …`,
  );
  const env = {
    ...process.env,
    PYTHONPATH: sources,
    CUDA_VISIBLE_DEVICES: process.env.CUDA_VISIBLE_DEVICES ?? '',
    ...(threads ? { OMP_NUM_THREADS: String(threads) } : {}),
  };
  const result = spawnSync(python, args, { stdio: ['ignore', 'inherit', 'inherit'], env });
  if (result.status !== 0) throw new Error(`the bench at ${processes} process(es) failed (exit ${result.status})`);
  rows.push(JSON.parse(readFileSync(out, 'utf8')) as Row);
}

const g = (x: number | null) => (x === null ? '—' : (x / 1e9).toFixed(1));
console.log(
  '\n| processes | threads/proc | checkpointing | tokens/step | step s | tokens/s | GFLOP/step | achieved GFLOP/s | matmul peak GFLOP/s | of peak | peak RSS MiB/proc |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.processes} | ${r.threadsPerProcess} | ${r.gradientCheckpointing ? 'yes' : 'no'} | ${r.trainedTokensPerStep} (${r.sequenceTokensPerStep} in sequences) | ${r.stepSeconds.toFixed(2)} | ${r.tokensPerSecond.toFixed(1)} | ${g(r.flopsPerStep)} | ${g(r.achievedFlops)} | ${g(r.matmulPeakFlops)} | ${r.fractionOfPeak === null ? '—' : `${(100 * r.fractionOfPeak).toFixed(1)}%`} | ${r.peakRssMiBPerProcess.map((m) => m.toFixed(0)).join(', ')} |`,
  );
}
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(
  values.out,
  `${JSON.stringify({ bench: 'torch-trainer', model: 'SmolLM2-135M-Instruct (fp32)', lora: 'r16 alpha 32, q k v o gate up down', objective: 'RL + hinted OPD + KL 0.1', cpuCores: cpus().length, createdAt: new Date().toISOString(), rows }, null, 2)}\n`,
);
console.log(`\nwrote ${values.out}`);
