/**
 * bench:engine — how fast the served policy answers, against the limit of
 * this model on this machine (issue 4, point 6).
 *
 * Served: the real gateway on the real engine worker, driven by the `openai`
 * client with streaming, on the probe set's first messages (the way the
 * student asks). Per request: time to first token (TTFT), prompt tokens/s
 * (prompt tokens / TTFT), decode tokens/s (tokens after the first / time from
 * the first token to the finish chunk). Concurrency 4: four streams at once,
 * decode throughput = all tokens after each first / the span they were
 * decoded in.
 * Limit: decode.onnx through onnxruntime alone, same session options, same
 * prompt length and number of steps (bench/forwardLimit.ts).
 * Diagnosis: the engine worker called directly (no HTTP) separates the
 * gateway's cost from the engine's.
 *
 *   npm run bench:engine [-- --requests N --max-tokens M]
 *   GATELAB_BENCH_MODEL_DIR=… to bench another build of the policy.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import { startEmbeddedEngine, type EngineClient } from '../electron/lab/serving/engineClient';
import { DEFAULT_MODEL_ID, RECIPE_SAMPLING, startGateway } from '../electron/lab/serving/gatewayServer';
import { loadPolicyTokenizer } from '../electron/lab/serving/policyTokenizer';
import { ServingState } from '../electron/lab/serving/servingState';
import { decodeSessionOptions, ortThreads } from '../electron/workers/embedded/ortSession';
import { Tokenizer } from '../electron/workers/embedded/tokenizer';
import { measureForwardLimit } from './forwardLimit';

const ROOT = join(import.meta.dirname, '..');
const MODEL_DIR = process.env.GATELAB_BENCH_MODEL_DIR ?? join(ROOT, 'assets', 'models', 'policy');
const TOKEN = 'bench-engine-token-0123456789';

const { values: cli } = parseArgs({
  options: { requests: { type: 'string', default: '8' }, 'max-tokens': { type: 'string', default: '160' } },
});
const REQUESTS = Number(cli.requests);
const MAX_TOKENS = Number(cli['max-tokens']);

type Message = { role: 'user'; content: string };
type Timed = { promptTokens: number; completionTokens: number; ttftMs: number; firstAt: number; endAt: number };

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

function probePrompts(): Message[] {
  const raw = JSON.parse(readFileSync(join(ROOT, 'assets', 'homework', 'probe.json'), 'utf8')) as { tasks: Array<{ firstMessage: string }> };
  return raw.tasks.map((task) => ({ role: 'user', content: task.firstMessage }));
}

/** One streamed request through the gateway, timed from the client. */
async function servedRequest(client: OpenAI, message: Message, seed: number): Promise<Timed> {
  const start = performance.now();
  let firstAt: number | null = null;
  let endAt = start;
  let usage: OpenAI.CompletionUsage | null = null;
  const stream = await client.chat.completions.create({
    model: DEFAULT_MODEL_ID,
    messages: [message],
    seed,
    max_tokens: MAX_TOKENS,
    stream: true,
    stream_options: { include_usage: true },
  });
  for await (const chunk of stream) {
    const now = performance.now();
    if (firstAt === null && (chunk.choices[0]?.delta.content ?? '') !== '') firstAt = now;
    if (chunk.choices[0]?.finish_reason) endAt = now;
    if (chunk.usage) usage = chunk.usage;
  }
  if (!usage) throw new Error('the stream ended without usage');
  const first = firstAt ?? endAt;
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, ttftMs: first - start, firstAt: first, endAt };
}

/** The same request straight to the engine worker (no HTTP, no gateway). */
async function directRequest(engine: EngineClient, message: Message, seed: number): Promise<Timed> {
  const start = performance.now();
  let firstAt: number | null = null;
  const result = await engine.generate(
    { messages: [message], sampling: { ...RECIPE_SAMPLING, maxTokens: MAX_TOKENS }, seed, logprobsTopK: 4 },
    () => {
      firstAt ??= performance.now();
    },
  );
  const endAt = performance.now();
  const first = firstAt ?? endAt;
  return { promptTokens: result.promptTokens, completionTokens: result.completionTokens, ttftMs: first - start, firstAt: first, endAt };
}

/** Decode rate of requests run one at a time: tokens after the first over the time after the first. */
function sequentialRates(runs: Timed[]): { decodeTokS: number; promptTokS: number; ttftMs: number } {
  const decoded = sum(runs.map((r) => Math.max(0, r.completionTokens - 1)));
  const decodeMs = sum(runs.map((r) => r.endAt - r.firstAt));
  return {
    decodeTokS: (decoded / decodeMs) * 1000,
    promptTokS: (sum(runs.map((r) => r.promptTokens)) / sum(runs.map((r) => r.ttftMs))) * 1000,
    ttftMs: median(runs.map((r) => r.ttftMs)),
  };
}

/** Aggregate decode throughput of rounds of `width` concurrent requests. */
async function concurrentRate(width: number, run: (i: number) => Promise<Timed>, requests: number): Promise<{ decodeTokS: number; ttftMs: number }> {
  let decoded = 0;
  let spanMs = 0;
  const ttfts: number[] = [];
  for (let round = 0; round * width < requests; round += 1) {
    const batch = await Promise.all(Array.from({ length: width }, (_, k) => run(round * width + k)));
    decoded += sum(batch.map((r) => Math.max(0, r.completionTokens - 1)));
    spanMs += Math.max(...batch.map((r) => r.endAt)) - Math.min(...batch.map((r) => r.firstAt));
    ttfts.push(...batch.map((r) => r.ttftMs));
  }
  return { decodeTokS: (decoded / spanMs) * 1000, ttftMs: median(ttfts) };
}

async function main(): Promise<void> {
  const prompts = probePrompts();
  const promptAt = (i: number): Message => prompts[i % prompts.length] as Message;
  const tokenizer = await loadPolicyTokenizer(MODEL_DIR);
  const engine = await startEmbeddedEngine({ modelDir: MODEL_DIR });
  const serving = new ServingState(engine.client, { version: 'base', sha256: engine.info.baseSha256 }, engine.info.baseSha256);
  const gateway = await startGateway({ engine: engine.client, serving, tokenizer, token: TOKEN });
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: TOKEN, maxRetries: 0 });

  try {
    // Warm-up: first calls pay for allocations and lazy initialisation.
    for (let i = 0; i < 2; i += 1) await servedRequest(client, promptAt(i), 1000 + i);

    const servedC1: Timed[] = [];
    for (let i = 0; i < REQUESTS; i += 1) servedC1.push(await servedRequest(client, promptAt(i), i));
    const directC1: Timed[] = [];
    for (let i = 0; i < REQUESTS; i += 1) directC1.push(await directRequest(engine.client, promptAt(i), i));
    const servedC4 = await concurrentRate(4, (i) => servedRequest(client, promptAt(i), i), Math.max(4, REQUESTS));

    const c1 = sequentialRates(servedC1);
    const direct = sequentialRates(directC1);

    // The limit, with the engine idle: the same prompt length and as many steps as a served reply.
    const policyTokenizer = Tokenizer.fromJson(JSON.parse(readFileSync(join(MODEL_DIR, 'tokenizer.json'), 'utf8')) as unknown);
    const encoded = Array.from({ length: REQUESTS }, (_, i) => policyTokenizer.encodeChat([promptAt(i)]));
    encoded.sort((a, b) => a.length - b.length);
    const limitPrompt = encoded[Math.floor(encoded.length / 2)] as number[];
    const promptLength = limitPrompt.length;
    const steps = Math.max(8, Math.round(median(servedC1.map((r) => r.completionTokens))));
    const limit = await measureForwardLimit({ modelDir: MODEL_DIR, promptIds: limitPrompt, decodeSteps: steps, repeats: 3, sessionOptions: decodeSessionOptions() });

    const limitTtftMs = limit.prefillMs + limit.decodeStepMs;
    const result = {
      model_dir: MODEL_DIR,
      machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? 'unknown', node: process.version, ort_threads: ortThreads() },
      settings: { requests: REQUESTS, max_tokens: MAX_TOKENS, sampling: RECIPE_SAMPLING, prompt_tokens_median: promptLength, completion_tokens_median: steps },
      decode_tok_s_c1: c1.decodeTokS,
      decode_tok_s_c4: servedC4.decodeTokS,
      prompt_tok_s: c1.promptTokS,
      ttft_ms: c1.ttftMs,
      ttft_ms_c4: servedC4.ttftMs,
      limit_tok_s: limit.decodeTokS,
      limit_prompt_tok_s: limit.prefillTokS,
      limit_ttft_ms: limitTtftMs,
      ratio_decode_c1: c1.decodeTokS / limit.decodeTokS,
      ratio_decode_c4: servedC4.decodeTokS / limit.decodeTokS,
      ratio_prompt: c1.promptTokS / limit.prefillTokS,
      ratio_ttft: limitTtftMs / c1.ttftMs,
      direct_engine: { decode_tok_s_c1: direct.decodeTokS, prompt_tok_s: direct.promptTokS, ttft_ms: direct.ttftMs, ratio_decode_c1: direct.decodeTokS / limit.decodeTokS },
      target: { ratio_decode_c1_min: 0.7, met: c1.decodeTokS / limit.decodeTokS >= 0.7 },
      measured_at: new Date().toISOString(),
    };

    const pct = (x: number): string => `${(x * 100).toFixed(0)} %`;
    const rows: Array<[string, string, string, string]> = [
      ['decode tok/s, concurrency 1', c1.decodeTokS.toFixed(1), limit.decodeTokS.toFixed(1), pct(result.ratio_decode_c1)],
      ['decode tok/s, concurrency 4 (aggregate)', servedC4.decodeTokS.toFixed(1), limit.decodeTokS.toFixed(1), pct(result.ratio_decode_c4)],
      ['prompt tok/s (prompt / TTFT)', c1.promptTokS.toFixed(1), limit.prefillTokS.toFixed(1), pct(result.ratio_prompt)],
      ['time to first token, ms (limit / served)', c1.ttftMs.toFixed(1), limitTtftMs.toFixed(1), pct(result.ratio_ttft)],
      ['  diagnosis: engine worker direct, decode tok/s c1', direct.decodeTokS.toFixed(1), limit.decodeTokS.toFixed(1), pct(result.direct_engine.ratio_decode_c1)],
      ['  diagnosis: engine worker direct, TTFT ms', direct.ttftMs.toFixed(1), limitTtftMs.toFixed(1), pct(limitTtftMs / direct.ttftMs)],
    ];
    const widths = [0, 1, 2, 3].map((c) => Math.max(...[['measure', 'served', 'limit', 'ratio'], ...rows].map((r) => (r[c] as string).length)));
    const line = (r: readonly string[]): string => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number))).join('  ');
    console.log(`\nbench:engine — ${MODEL_DIR}`);
    console.log(`${REQUESTS} probe prompts (median ${promptLength} prompt tokens, ${steps} completion tokens), max_tokens ${MAX_TOKENS}, ORT threads ${ortThreads()}, ${cpus().length} CPUs`);
    console.log(line(['measure', 'served', 'limit', 'ratio']));
    for (const row of rows) console.log(line(row));
    console.log(`target: served decode ≥ 70 % of the limit at concurrency 1 — ${result.target.met ? 'met' : 'MISSED'}`);

    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench', 'results', 'engine.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log('wrote bench/results/engine.json');
  } finally {
    await gateway.close();
    await engine.client.close();
  }
}

await main();
