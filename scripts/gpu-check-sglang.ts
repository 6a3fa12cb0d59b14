// gpu-check's SGLang row: policy.kind sglang on SmolLM2-135M on one GPU,
// through the lab's own backend (sglangPolicy → a supervised
// `sglang.launch_server` → SglangEngineClient), the end-to-end check that
// cannot run on a CPU (SGLang has no CPU build: sglangPolicy.ts). Checks:
// - the reply's token ids, raw log-probs and top-4 equal the trainer's fp32
//   forward over the same prompt and reply ids (tests/helpers/
//   reference_logprobs.py), within TOLERANCE per token;
// - the reply's log-probs are the model's own, not the sampling
//   distribution's: a reply at temperature 0.6 still matches the T = 1
//   reference;
// - under load, LoRA swaps drop no request and every reply names the version
//   that produced it; an adapter's replies have its log-probs, not the base's.
// Prints one JSON row (check, ok, stepSeconds = median swap, tokensPerSecond,
// detail) for scripts/gpu-check.sh; exits 0 even when the check fails (the
// row says so), 2 when it cannot run.
//   npx tsx scripts/gpu-check-sglang.ts [--gpu 0]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { findBackendPython } from '../src/backends/backendPython';
import { findModelFolder } from '../src/backends/httpEngine/engineEnvironment';
import { sglangPolicySection } from '../src/backends/sglang/sglangBackend';
import { sglangPython } from '../src/backends/sglang/sglangPython';
import { sglangPolicy } from '../src/backends/sglang/sglangPolicy';
import { detectHostGpus } from '../src/processes/devices/hostGpus';
import { rolePlacement } from '../src/processes/devices/rolePlacement';
import type { GenerateRequest, GenerateResult } from '../src/core/protocols/engineProtocol';
import { findPythonEnvironment, torchWorkerSources } from '../src/processes/python/pythonEnvironment';
import { writeRandomLoraAdapter } from '../tests/helpers/randomLoraAdapter';
import { referenceRows, type ReferenceRow } from '../tests/helpers/referenceLogprobs';
import { engineRequest, SMOLLM2 } from '../tests/helpers/vllmTestSetup';

/** Per token, nats: SGLang's fp32 GPU kernels against the trainer's fp32 CPU forward. */
const TOLERANCE = 0.01;
const K = 4;
const CHECK = 'SGLang LoRA swap, raw log-probs on GPU';

const { values: args } = parseArgs({ options: { gpu: { type: 'string', default: '0' } } });
const row = (ok: boolean | null, detail: string, extra: Record<string, number> = {}) =>
  console.log(JSON.stringify({ check: `${CHECK} ${args.gpu}`, ok, detail, ...extra }));

type Reference = ReferenceRow;

/** The trainer's fp32 forward over the replies' own ids (gpu-check needs the trainer's environment anyway). */
async function reference(modelDir: string, adapterDir: string | null, results: GenerateResult[]): Promise<Reference[]> {
  const env = { ...process.env, PYTHONPATH: torchWorkerSources() };
  return (await referenceRows(findPythonEnvironment().python, env, { modelDir, adapterDir, k: K, results })).rows;
}

/** The largest per-token |Δ| of the sampled tokens' log-probs and of the top-K log-probs. */
function worst(results: GenerateResult[], refs: Reference[]): number {
  let w = 0;
  results.forEach((r, i) => {
    const ref = refs[i] as Reference;
    r.logprobs.forEach((lp, t) => (w = Math.max(w, Math.abs(lp - (ref.logprobs[t] as number)))));
    r.topLogprobs.forEach((row_, t) => row_.forEach((lp, j) => (w = Math.max(w, Math.abs(lp - ((ref.topLogprobs[t] as number[])[j] as number))))));
  });
  return w;
}

const request = (n: number, seed: number, maxTokens = 32): GenerateRequest => engineRequest(n, seed, maxTokens, K);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main(): Promise<void> {
  const environment = findBackendPython(sglangPython);
  const model = findModelFolder(SMOLLM2, (p) => p);
  if ('missing' in environment || 'missing' in model) {
    row(null, `skipped: ${'missing' in environment ? environment.missing : 'missing' in model ? model.missing : ''}`);
    return;
  }
  const policy = sglangPolicySection.parse({
    kind: 'sglang',
    model: SMOLLM2,
    gpu_memory_utilization: 0.3,
    sampling: { temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 512 },
  });
  const backend = sglangPolicy(policy, (p) => p, { host: detectHostGpus() });
  const root = await mkdtemp(path.join(tmpdir(), 'gatelab-gpu-check-sglang-'));
  const engine = await backend.startEngine({ role: 'serving', placement: rolePlacement({ gpus: [Number(args.gpu)] }) });
  try {
    const client = engine.client;
    // 1. Raw log-probs and top-K of the base against the trainer's forward.
    const base = await Promise.all([request(3, 11), request(5, 12)].map((r) => client.generate(r)));
    const shapeOk = base.every(
      (r) =>
        r.version === 'base' && r.promptIds?.length === r.promptTokens && r.tokenIds.length === r.completionTokens && r.topIds.every((ids) => ids.length === K),
    );
    const baseWorst = worst(base, await reference(model.modelDir, null, base));

    // 2. Swaps under load: four clients keep asking while the adapter changes four times.
    const adapters = [
      await writeRandomLoraAdapter(model.modelDir, path.join(root, 'a1'), 1),
      await writeRandomLoraAdapter(model.modelDir, path.join(root, 'a2'), 2),
    ];
    const outcomes: Array<{ ok: boolean; version: string; tokens: number; ms: number }> = [];
    let swapping = true;
    const loop = async (n: number) => {
      while (swapping) {
        const started = performance.now();
        try {
          const r = await client.generate(request(n, n, 16));
          outcomes.push({ ok: true, version: r.version, tokens: r.tokenIds.length, ms: performance.now() - started });
        } catch {
          outcomes.push({ ok: false, version: '', tokens: 0, ms: performance.now() - started });
        }
      }
    };
    const loops = [1, 2, 3, 4].map(loop);
    const swapSeconds: number[] = [];
    const served: string[] = [];
    for (const target of [adapters[0], adapters[1], null, adapters[0]]) {
      const started = performance.now();
      served.push(await client.setAdapter(target ?? null));
      swapSeconds.push((performance.now() - started) / 1000);
    }
    swapping = false;
    await Promise.all(loops);
    const known = new Set(['base', ...adapters.map((a) => a.version)]);
    const failed = outcomes.filter((o) => !o.ok).length;
    const unknownVersion = outcomes.filter((o) => o.ok && !known.has(o.version)).length;

    // 3. The adapter's replies carry the adapter's log-probs (and not the base's).
    const onAdapter = await Promise.all([request(4, 21), request(6, 22)].map((r) => client.generate(r)));
    const adapterDir = adapters[0]?.dir ?? '';
    const adapterWorst = worst(onAdapter, await reference(model.modelDir, adapterDir, onAdapter));
    const baseOnAdapterReplies = worst(onAdapter, await reference(model.modelDir, null, onAdapter));
    const tokens = outcomes.reduce((s, o) => s + o.tokens, 0);
    const seconds = outcomes.reduce((s, o) => s + o.ms, 0) / 1000 / 4;
    const ok =
      shapeOk &&
      baseWorst < TOLERANCE &&
      adapterWorst < TOLERANCE &&
      baseOnAdapterReplies > 0.2 &&
      failed === 0 &&
      unknownVersion === 0 &&
      onAdapter.every((r) => r.version === adapters[0]?.version) &&
      outcomes.length > 0;
    row(
      ok,
      `${outcomes.length} requests, ${failed} failed, ${unknownVersion} unknown versions; worst |Δ log-prob| base ${baseWorst.toFixed(4)}, adapter ${adapterWorst.toFixed(4)} (base vs adapter replies ${baseOnAdapterReplies.toFixed(3)}); served ${served.join(' → ')}`,
      {
        stepSeconds: median(swapSeconds),
        tokensPerSecond: seconds > 0 ? tokens / seconds : 0,
      },
    );
  } finally {
    await engine.client.close();
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  row(false, (error as Error).message.slice(0, 300));
});
