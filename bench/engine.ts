/**
 * bench:engine — how fast the served policy answers, against the limit of
 * this model on this machine.
 *
 * Served: the real gateway on the real engine worker, driven by a lean SSE
 * client (bench/sseChatClient.ts), on the probe set's first messages (the way the
 * student asks). Per request: time to first token (TTFT), prompt tokens/s
 * (prompt tokens / TTFT), decode tokens/s (tokens after the first / time from
 * the first token to the finish chunk). Concurrency 4: four streams at once;
 * decode throughput = all tokens after each stream's first / the span they
 * were decoded in.
 * Limit: decode.onnx through onnxruntime alone under the engine's session
 * options (bench/forwardLimit.ts), for the same prompt and as many steps,
 * measured in the same round as the served request (paired rounds, order
 * rotating; medians and the middle half of the per-round ratios).
 * Wall clock and CPU time: the machine is shared, so wall-clock rates drift
 * with other people's load; the CPU time spent per token (engine worker +
 * this process for served; this process for the limit) does not, and says
 * where the time goes.
 * Diagnosis: the engine worker called directly (no HTTP, no gateway).
 *
 *   npm run bench:engine [-- --requests N --max-tokens M]
 *   GATELAB_BENCH_MODEL_DIR=… to bench another build of the policy.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startEmbeddedEngine } from '../src/backends/embedded/embeddedPolicy';
import type { EngineClient } from '../src/core/protocols/engineProtocol';
import { DEFAULT_MODEL_ID, RECIPE_SAMPLING, startGateway } from '../src/surfaces/gateway/gatewayServer';
import { EngineTokenizer } from '../src/core/protocols/engineTokenizer';
import { ServingState } from '../src/run/servingState';
import { decodeSessionOptions, ortThreads } from '../src/backends/embedded/engine/ortSession';
import { Tokenizer } from '../src/backends/embedded/engine/tokenizer';
import { cpuMsOf } from './cpuTime';
import { BareForwardPass, type ForwardTiming } from './forwardLimit';
import { streamChatCompletion, type StreamChunk } from './sseChatClient';

const ROOT = join(import.meta.dirname, '..');
const MODEL_DIR = process.env.GATELAB_BENCH_MODEL_DIR ?? join(ROOT, 'assets', 'models', 'policy');
const TOKEN = 'bench-engine-token-0123456789';

const { values: cli } = parseArgs({
  options: { requests: { type: 'string', default: '12' }, 'max-tokens': { type: 'string', default: '160' } },
});
const REQUESTS = Number(cli.requests);
const MAX_TOKENS = Number(cli['max-tokens']);
if (!Number.isInteger(REQUESTS) || REQUESTS < 4 || !Number.isInteger(MAX_TOKENS) || MAX_TOKENS < 8) {
  throw new Error('--requests must be an integer ≥ 4 and --max-tokens an integer ≥ 8');
}

type Message = { role: 'user'; content: string };
/** One request, wall-clock marks (ms) and the CPU clock (ms) at the same instants. */
type Timed = {
  promptTokens: number;
  completionTokens: number;
  startAt: number;
  firstAt: number;
  endAt: number;
  cpuStart: number;
  cpuFirst: number;
  cpuEnd: number;
};
type Rates = { decodeTokS: number; promptTokS: number; ttftMs: number; decodeCpuTokS: number; promptCpuTokS: number };

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
/**
 * Collects garbage before each measured step: the bare pass allocates ~1 MB
 * of KV cache per step in this process, and without this its collection would
 * land in the next served request's window (same process) and be charged to
 * the gateway. Needs `node --expose-gc` (the npm script passes it).
 */
const exposedGc = (globalThis as { gc?: () => void }).gc;
const collectGarbage = (): void => exposedGc?.();

/** Linear-interpolated quantile (q in [0, 1]). */
const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return (s[lo] as number) + ((s[hi] as number) - (s[lo] as number)) * (at - lo);
};
const median = (xs: number[]): number => quantile(xs, 0.5);
/** The middle half of the per-round values: how much the shared machine moved the figure. */
const quartiles = (xs: number[]): [number, number] => [quantile(xs, 0.25), quantile(xs, 0.75)];
const perSecond = (count: number, ms: number): number => (count / Math.max(ms, 1e-6)) * 1000;

function probePrompts(): Message[] {
  const raw = JSON.parse(readFileSync(join(ROOT, 'assets', 'homework', 'probe.json'), 'utf8')) as { tasks: Array<{ firstMessage: string }> };
  return raw.tasks.map((task) => ({ role: 'user', content: task.firstMessage }));
}

/** One streamed request through the gateway, timed from the client. */
async function servedRequest(baseUrl: string, message: Message, seed: number, cpu: () => number): Promise<Timed> {
  const startAt = performance.now();
  const cpuStart = cpu();
  let first: { at: number; cpu: number } | null = null;
  let end = { at: startAt, cpu: cpuStart };
  let usage: StreamChunk['usage'] = null;
  const body = { model: DEFAULT_MODEL_ID, messages: [message], seed, max_tokens: MAX_TOKENS, stream: true, stream_options: { include_usage: true } };
  await streamChatCompletion(baseUrl, TOKEN, body, (chunk) => {
    if (first === null && (chunk.choices[0]?.delta.content ?? '') !== '') first = { at: performance.now(), cpu: cpu() };
    if (chunk.choices[0]?.finish_reason) end = { at: performance.now(), cpu: cpu() };
    if (chunk.usage) usage = chunk.usage;
  });
  const finalUsage = usage as StreamChunk['usage'];
  if (!finalUsage) throw new Error('the stream ended without usage');
  const firstMark = first ?? end;
  return {
    promptTokens: finalUsage.prompt_tokens,
    completionTokens: finalUsage.completion_tokens,
    startAt,
    firstAt: firstMark.at,
    endAt: end.at,
    cpuStart,
    cpuFirst: firstMark.cpu,
    cpuEnd: end.cpu,
  };
}

/** The same request straight to the engine worker (no HTTP, no gateway). */
async function directRequest(engine: EngineClient, message: Message, seed: number, cpu: () => number): Promise<Timed> {
  const startAt = performance.now();
  const cpuStart = cpu();
  let first: { at: number; cpu: number } | null = null;
  const result = await engine.generate({ messages: [message], sampling: { ...RECIPE_SAMPLING, maxTokens: MAX_TOKENS }, seed, logprobsTopK: 4 }, () => {
    first ??= { at: performance.now(), cpu: cpu() };
  });
  const end = { at: performance.now(), cpu: cpu() };
  const firstMark = first ?? end;
  return {
    promptTokens: result.promptTokens,
    completionTokens: result.completionTokens,
    startAt,
    firstAt: firstMark.at,
    endAt: end.at,
    cpuStart,
    cpuFirst: firstMark.cpu,
    cpuEnd: end.cpu,
  };
}

const ratesOf = (run: Timed): Rates => {
  const decoded = Math.max(0, run.completionTokens - 1);
  return {
    decodeTokS: perSecond(decoded, run.endAt - run.firstAt),
    promptTokS: perSecond(run.promptTokens, run.firstAt - run.startAt),
    ttftMs: run.firstAt - run.startAt,
    decodeCpuTokS: perSecond(decoded, run.cpuEnd - run.cpuFirst),
    promptCpuTokS: perSecond(run.promptTokens, run.cpuFirst - run.cpuStart),
  };
};

/** The limit's rates for a request that decoded `steps` tokens after its first: the same prefix of the bare pass. */
function limitRates(bare: ForwardTiming, steps: number): Rates {
  const n = Math.min(Math.max(1, steps), bare.decodeSteps);
  return {
    decodeTokS: perSecond(n, bare.stepEndsMs[n - 1] as number),
    promptTokS: perSecond(bare.promptTokens, bare.prefillMs),
    // The prefill's forward pass is what yields the first token.
    ttftMs: bare.prefillMs,
    decodeCpuTokS: perSecond(n, bare.stepEndsCpuMs[n - 1] as number),
    promptCpuTokS: perSecond(bare.promptTokens, bare.prefillCpuMs),
  };
}

async function main(): Promise<void> {
  if (!exposedGc) console.warn('bench:engine: run with node --expose-gc (npm run bench:engine does) or garbage collection will blur the figures');
  const prompts = probePrompts();
  const promptAt = (i: number): Message => prompts[i % prompts.length] as Message;
  const policyTokenizer = Tokenizer.fromJson(JSON.parse(readFileSync(join(MODEL_DIR, 'tokenizer.json'), 'utf8')) as unknown);
  const promptIdsAt = (i: number): number[] => policyTokenizer.encodeChat([promptAt(i)]);
  const engine = await startEmbeddedEngine({ modelDir: MODEL_DIR });
  const serving = new ServingState(engine.client, { version: 'base', sha256: engine.info.baseSha256 }, engine.info.baseSha256);
  const gateway = await startGateway({ engine: engine.client, serving, tokenizer: new EngineTokenizer(engine.client), token: TOKEN });
  const bare = await BareForwardPass.open(MODEL_DIR, decodeSessionOptions());
  // Served work is the engine worker's and this process's (gateway + client).
  const servedCpu = (): number => cpuMsOf([process.pid, engine.pid() as number]);

  try {
    // Warm-up: first calls pay for allocations and lazy initialisation.
    for (let i = 0; i < 2; i += 1) await servedRequest(gateway.url, promptAt(i), 1000 + i, servedCpu);
    await bare.time(promptIdsAt(0), 16);

    // Paired rounds: each prompt served, sent to the worker directly, and run
    // bare, in an order that rotates so no one always runs right after the
    // others (caches, the machine's load); the limit for a request is the
    // bare pass over the same prompt and as many steps.
    const c1: Array<{ served: Rates; direct: Rates; limit: Rates; promptTokens: number; completionTokens: number }> = [];
    for (let i = 0; i < REQUESTS; i += 1) {
      let served: Timed | null = null;
      let direct: Timed | null = null;
      let limit: ForwardTiming | null = null;
      const steps = [
        async () => void (served = await servedRequest(gateway.url, promptAt(i), i, servedCpu)),
        async () => void (direct = await directRequest(engine.client, promptAt(i), i, servedCpu)),
        async () => void (limit = await bare.time(promptIdsAt(i), MAX_TOKENS)),
      ];
      for (let k = 0; k < steps.length; k += 1) {
        collectGarbage();
        await (steps[(i + k) % steps.length] as () => Promise<void>)();
      }
      const [s, d, l] = [served as Timed | null, direct as Timed | null, limit as ForwardTiming | null];
      if (!s || !d || !l) throw new Error('a paired round did not complete');
      c1.push({
        served: ratesOf(s),
        direct: ratesOf(d),
        limit: limitRates(l, s.completionTokens - 1),
        promptTokens: s.promptTokens,
        completionTokens: s.completionTokens,
      });
    }

    const c4: Array<{ decodeTokS: number; decodeCpuTokS: number; ttftMs: number; limit: Rates }> = [];
    for (let round = 0; round < Math.ceil(REQUESTS / 4); round += 1) {
      const indices = [0, 1, 2, 3].map((k) => round * 4 + k);
      collectGarbage();
      const batch = await Promise.all(indices.map((i) => servedRequest(gateway.url, promptAt(i), i, servedCpu)));
      // Aggregate: every token after each stream's first, over the span (and the CPU) they were decoded in.
      const decoded = sum(batch.map((r) => Math.max(0, r.completionTokens - 1)));
      const firstOfAll = batch.reduce((a, b) => (a.firstAt <= b.firstAt ? a : b));
      const lastOfAll = batch.reduce((a, b) => (a.endAt >= b.endAt ? a : b));
      collectGarbage();
      const limit = limitRates(await bare.time(promptIdsAt(indices[0] as number), MAX_TOKENS), Math.round(median(batch.map((r) => r.completionTokens))) - 1);
      c4.push({
        decodeTokS: perSecond(decoded, lastOfAll.endAt - firstOfAll.firstAt),
        decodeCpuTokS: perSecond(decoded, lastOfAll.cpuEnd - firstOfAll.cpuFirst),
        ttftMs: median(batch.map((r) => r.firstAt - r.startAt)),
        limit,
      });
    }

    const med = (f: (row: (typeof c1)[number]) => number): number => median(c1.map(f));
    const med4 = (f: (row: (typeof c4)[number]) => number): number => median(c4.map(f));
    const result = {
      model_dir: MODEL_DIR,
      machine: {
        cpus: cpus().length,
        cpu_model: cpus()[0]?.model ?? 'unknown',
        node: process.version,
        ort_threads: ortThreads(),
        load_avg_1m: loadavg()[0] ?? 0,
      },
      settings: {
        requests: REQUESTS,
        max_tokens: MAX_TOKENS,
        sampling: RECIPE_SAMPLING,
        prompt_tokens_median: med((r) => r.promptTokens),
        completion_tokens_median: med((r) => r.completionTokens),
      },
      // Wall clock, medians of paired rounds.
      decode_tok_s_c1: med((r) => r.served.decodeTokS),
      decode_tok_s_c4: med4((r) => r.decodeTokS),
      prompt_tok_s: med((r) => r.served.promptTokS),
      ttft_ms: med((r) => r.served.ttftMs),
      ttft_ms_c4: med4((r) => r.ttftMs),
      limit_tok_s: med((r) => r.limit.decodeTokS),
      limit_prompt_tok_s: med((r) => r.limit.promptTokS),
      limit_ttft_ms: med((r) => r.limit.ttftMs),
      ratio_decode_c1: med((r) => r.served.decodeTokS / r.limit.decodeTokS),
      ratio_decode_c1_quartiles: quartiles(c1.map((r) => r.served.decodeTokS / r.limit.decodeTokS)),
      ratio_decode_c4: med4((r) => r.decodeTokS / r.limit.decodeTokS),
      ratio_prompt: med((r) => r.served.promptTokS / r.limit.promptTokS),
      ratio_ttft: med((r) => r.limit.ttftMs / r.served.ttftMs),
      // CPU time: tokens per CPU-second, which other people's load does not change.
      cpu: {
        decode_tok_s_c1: med((r) => r.served.decodeCpuTokS),
        decode_tok_s_c4: med4((r) => r.decodeCpuTokS),
        prompt_tok_s: med((r) => r.served.promptCpuTokS),
        limit_tok_s: med((r) => r.limit.decodeCpuTokS),
        limit_prompt_tok_s: med((r) => r.limit.promptCpuTokS),
        ratio_decode_c1: med((r) => r.served.decodeCpuTokS / r.limit.decodeCpuTokS),
        ratio_decode_c1_quartiles: quartiles(c1.map((r) => r.served.decodeCpuTokS / r.limit.decodeCpuTokS)),
        ratio_decode_c4: med4((r) => r.decodeCpuTokS / r.limit.decodeCpuTokS),
        ratio_prompt: med((r) => r.served.promptCpuTokS / r.limit.promptCpuTokS),
      },
      direct_engine: {
        decode_tok_s_c1: med((r) => r.direct.decodeTokS),
        ttft_ms: med((r) => r.direct.ttftMs),
        ratio_decode_c1: med((r) => r.direct.decodeTokS / r.limit.decodeTokS),
        cpu_ratio_decode_c1: med((r) => r.direct.decodeCpuTokS / r.limit.decodeCpuTokS),
        cpu_ratio_prompt: med((r) => r.direct.promptCpuTokS / r.limit.promptCpuTokS),
      },
      target: { ratio_decode_c1_min: 0.7 },
      rounds: { c1, c4 },
      measured_at: new Date().toISOString(),
    };

    const pct = (x: number): string => `${(x * 100).toFixed(0)} %`;
    const f1 = (x: number): string => x.toFixed(1);
    type Row = [string, string, string, string, string, string, string];
    const spread = ([lo, hi]: [number, number]): string => `${(lo * 100).toFixed(0)}–${(hi * 100).toFixed(0)} %`;
    const rows: Row[] = [
      [
        'decode tok/s, concurrency 1',
        f1(result.decode_tok_s_c1),
        f1(result.limit_tok_s),
        pct(result.ratio_decode_c1),
        f1(result.cpu.decode_tok_s_c1),
        f1(result.cpu.limit_tok_s),
        pct(result.cpu.ratio_decode_c1),
      ],
      ['  middle half of the c1 rounds', '', '', spread(result.ratio_decode_c1_quartiles), '', '', spread(result.cpu.ratio_decode_c1_quartiles)],
      [
        'decode tok/s, concurrency 4 (all streams)',
        f1(result.decode_tok_s_c4),
        f1(med4((r) => r.limit.decodeTokS)),
        pct(result.ratio_decode_c4),
        f1(result.cpu.decode_tok_s_c4),
        f1(med4((r) => r.limit.decodeCpuTokS)),
        pct(result.cpu.ratio_decode_c4),
      ],
      [
        'prompt tok/s (prompt / TTFT)',
        f1(result.prompt_tok_s),
        f1(result.limit_prompt_tok_s),
        pct(result.ratio_prompt),
        f1(result.cpu.prompt_tok_s),
        f1(result.cpu.limit_prompt_tok_s),
        pct(result.cpu.ratio_prompt),
      ],
      ['TTFT ms, concurrency 1 (ratio = limit/served)', f1(result.ttft_ms), f1(result.limit_ttft_ms), pct(result.ratio_ttft), '', '', ''],
      ['TTFT ms, concurrency 4', f1(result.ttft_ms_c4), '', '', '', '', ''],
      [
        'diagnosis: engine worker alone, decode c1',
        f1(result.direct_engine.decode_tok_s_c1),
        f1(result.limit_tok_s),
        pct(result.direct_engine.ratio_decode_c1),
        '',
        '',
        pct(result.direct_engine.cpu_ratio_decode_c1),
      ],
      [
        'diagnosis: engine worker alone, TTFT ms',
        f1(result.direct_engine.ttft_ms),
        f1(result.limit_ttft_ms),
        pct(result.limit_ttft_ms / result.direct_engine.ttft_ms),
        '',
        '',
        '',
      ],
    ];
    const header: Row = ['measure (median of paired rounds)', 'served', 'limit', 'ratio', 'served/CPU-s', 'limit/CPU-s', 'CPU ratio'];
    const widths = header.map((_, c) => Math.max(...[header, ...rows].map((r) => r[c]?.length ?? 0)));
    const line = (r: readonly string[]): string =>
      r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number))).join('  ');
    console.log(`\nbench:engine — ${MODEL_DIR}`);
    console.log(
      `${REQUESTS} probe prompts (median ${result.settings.prompt_tokens_median} prompt, ${result.settings.completion_tokens_median} completion tokens), ` +
        `max_tokens ${MAX_TOKENS}, ORT threads ${ortThreads()}, ${cpus().length} CPUs, load average ${result.machine.load_avg_1m.toFixed(1)}`,
    );
    console.log(line(header));
    for (const row of rows) console.log(line(row));
    const verdict = (ratio: number): string => (ratio >= 0.7 ? 'met' : 'MISSED');
    console.log(
      `target: served decode ≥ 70 % of the limit at concurrency 1 — wall clock ${verdict(result.ratio_decode_c1)}, CPU time ${verdict(result.cpu.ratio_decode_c1)}`,
    );

    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench', 'results', 'engine.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log('wrote bench/results/engine.json');
  } finally {
    await bare.release();
    await gateway.close();
    await engine.client.close();
  }
}

await main();
