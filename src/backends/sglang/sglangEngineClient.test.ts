// How SglangEngineClient reads SGLang's answers and drives its adapter
// routes. The answers are recorded shapes of SGLang 0.5.23's `/generate`
// (meta_info as its tokenizer manager builds it: [log-prob, id, text]
// triples, finish_reason {type, matched}); the HTTP server in the swap test
// is a stand-in that records what the client sends and holds a request on a
// barrier, so the order of events is the test's, not the machine's. That a
// real SGLang server computes what these answers say is scripts/gpu_check.py's
// job (SGLang has no CPU build: sglangPolicy.ts).
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineError, type AdapterRef, type GenerateRequest } from '../../core/protocols/engineProtocol';
import type { SupervisedServer } from '../../processes/supervisedServer';
import { writeZeroAdapter } from '../httpEngine/loraFolders';
import { engineErrorMessage } from '../httpEngine/runtimeLoraEngineClient';
import { writeRandomLoraAdapter } from '../../../tests/helpers/randomLoraAdapter';
import { SglangEngineClient, sglangGenerateResponseSchema, sglangResult, sglangSamplingParams, type SglangGenerateResponse } from './sglangEngineClient';

const request: GenerateRequest = {
  messages: [{ role: 'user', content: 'Tom has 3 apples and buys 6 more. How many?' }],
  sampling: { temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 5 },
  seed: 11,
  logprobsTopK: 2,
};

/** SGLang's answer for a reply that stopped on the end-of-turn token (id 2), top-3 asked where K is 2 (unsorted, as a check). */
function recorded(): SglangGenerateResponse {
  return sglangGenerateResponseSchema.parse({
    text: 'It is 9.',
    output_ids: [1028, 314, 216, 2],
    meta_info: {
      id: '4a0c8f2e1b',
      finish_reason: { type: 'stop', matched: 2 },
      prompt_tokens: 3,
      weight_version: 'default',
      num_retractions: 0,
      input_token_logprobs: [],
      output_token_logprobs: [
        [-0.25, 1028, null],
        [-1.5, 314, null],
        [-0.01, 216, null],
        [-0.002, 2, null],
      ],
      output_token_logprobs_length: 4,
      output_top_logprobs: [
        [
          [-2.0, 77, null],
          [-0.25, 1028, null],
          [-3.5, 9, null],
        ],
        [
          [-0.5, 42, null],
          [-1.5, 314, null],
          [-4.0, 5, null],
        ],
        [
          [-0.01, 216, null],
          [-5.0, 17, null],
          [-6.0, 18, null],
        ],
        [
          [-0.002, 2, null],
          [-7.0, 0, null],
          [-8.0, 1, null],
        ],
      ],
      reasoning_tokens: 0,
      completion_tokens: 4,
      cached_tokens: 0,
      e2e_latency: 0.21,
    },
  });
}

describe("reading SGLang's /generate answer", () => {
  it('gives the reply ids (end-of-turn included), their log-probs, the K best of each position best first, the prompt ids and the version', () => {
    const result = sglangResult(recorded(), [10, 11, 12], 'v3-abcdef01', request, 5);
    expect(result.tokenIds).toEqual([1028, 314, 216, 2]);
    expect(result.logprobs).toEqual([-0.25, -1.5, -0.01, -0.002]);
    expect(result.topIds).toEqual([
      [1028, 77],
      [42, 314],
      [216, 17],
      [2, 0],
    ]);
    expect(result.topLogprobs[0]).toEqual([-0.25, -2.0]);
    expect(result).toMatchObject({
      text: 'It is 9.',
      finishReason: 'stop',
      promptTokens: 3,
      completionTokens: 4,
      promptIds: [10, 11, 12],
      version: 'v3-abcdef01',
      seed: 11,
    });
  });

  it('reads a reply cut at max tokens as length', () => {
    const data = recorded();
    data.meta_info.finish_reason = { type: 'length', length: 4 };
    expect(sglangResult(data, [10, 11, 12], 'base', request, 5).finishReason).toBe('length');
  });

  it.each([
    [
      'an aborted reply',
      (d: SglangGenerateResponse) => (d.meta_info.finish_reason = { type: 'abort', message: 'LoRA v3 was unloaded' }),
      /finished the reply with .*abort.*LoRA v3 was unloaded/,
    ],
    ['output ids that are not the log-probs’ tokens', (d: SglangGenerateResponse) => (d.output_ids = [1028, 314, 216]), /output ids that disagree/],
    [
      'a stop token that is not the last token',
      (d: SglangGenerateResponse) => (d.meta_info.finish_reason = { type: 'stop', matched: 7 }),
      /stopped on token 7/,
    ],
    [
      'fewer top log-probs than K at a position',
      (d: SglangGenerateResponse) => (d.meta_info.output_top_logprobs![2] = [[-0.01, 216, null]]),
      /1 top log-probs at position 2, not 2/,
    ],
    ['no top log-probs for a position', (d: SglangGenerateResponse) => d.meta_info.output_top_logprobs!.pop(), /top log-probs for 3 of 4 positions/],
    ['a prompt of another length than the one sent', (d: SglangGenerateResponse) => (d.meta_info.prompt_tokens = 4), /counted 4 prompt tokens; GateLab sent 3/],
  ])('refuses %s', (_what, spoil, message) => {
    const data = recorded();
    spoil(data);
    expect(() => sglangResult(data, [10, 11, 12], 'base', request, 5)).toThrow(message);
  });

  it("reads the message of SGLang's error bodies: a failed adapter load, an OpenAI-style error, plain text", () => {
    expect(engineErrorMessage(JSON.stringify({ success: false, error_message: 'LoRA rank 32 is greater than max_lora_rank 16', loaded_adapters: {} }))).toBe(
      'LoRA rank 32 is greater than max_lora_rank 16',
    );
    expect(
      engineErrorMessage(
        JSON.stringify({ object: 'error', message: "The input (3000 tokens) is longer than the model's context length (2048 tokens).", code: 400 }),
      ),
    ).toMatch(/longer than the model's context length/);
    expect(engineErrorMessage(JSON.stringify({ error: { message: 'bad top_k' } }))).toBe('bad top_k');
    expect(engineErrorMessage('Internal Server Error')).toBe('Internal Server Error');
  });

  it('asks for every sampling field, the seed, and top-k off as -1', () => {
    expect(sglangSamplingParams(request)).toEqual({
      temperature: 0.6,
      top_p: 0.95,
      top_k: 20,
      max_new_tokens: 5,
      sampling_seed: 11,
      skip_special_tokens: true,
    });
    expect(sglangSamplingParams({ ...request, sampling: { ...request.sampling, topK: 0 } }).top_k).toBe(-1);
  });
});

type Call = { route: string; body: Record<string, unknown>; authorization: string | undefined };

/** A stand-in for SGLang's HTTP routes: records every call; `/generate` for `held` waits until `release()`. */
class SglangStandIn {
  readonly calls: Call[] = [];
  readonly events: string[] = [];
  held: string | null = null;
  /** When set, `/generate` answers 400 with this message (as SGLang does for a prompt beyond the context). */
  refuseGenerate: string | null = null;
  #release: (() => void) | null = null;
  #arrived: (() => void) | null = null;
  readonly server: Server;

  constructor() {
    this.server = createServer(
      (req, res) => void this.#answer(req).then(([status, body]) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body))),
    );
  }

  /** Resolves when the held request has reached the server. */
  heldArrived(): Promise<void> {
    return new Promise((resolve) => (this.#arrived = resolve));
  }

  release(): void {
    this.#release?.();
  }

  async #answer(req: IncomingMessage): Promise<[number, unknown]> {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    const body = JSON.parse(text) as Record<string, unknown>;
    const route = req.url ?? '';
    this.calls.push({ route, body, authorization: req.headers.authorization });
    if (route === '/v1/tokenize') return [200, { tokens: [10, 11, 12], count: 3, max_model_len: 2048 }];
    if (route === '/load_lora_adapter' && !existsSync(path.join(String(body.lora_path), 'adapter_config.json'))) {
      // As SGLang and vLLM do: a folder without its config cannot be loaded.
      this.events.push(`load ${String(body.lora_name)} failed`);
      return [400, { success: false, error_message: `no adapter_config.json in ${String(body.lora_path)}`, loaded_adapters: {} }];
    }
    if (route === '/load_lora_adapter' || route === '/unload_lora_adapter') {
      this.events.push(`${route === '/load_lora_adapter' ? 'load' : 'unload'} ${String(body.lora_name)}`);
      return [200, { success: true, error_message: null, loaded_adapters: {} }];
    }
    if (route === '/generate' && this.refuseGenerate) return [400, { object: 'error', message: this.refuseGenerate, type: 'BadRequestError', code: 400 }];
    if (route === '/generate') {
      const lora = String(body.lora_path);
      if (lora === this.held) {
        this.events.push(`held ${lora}`);
        const released = new Promise<void>((resolve) => (this.#release = resolve));
        this.#arrived?.();
        await released;
      }
      this.events.push(`answered ${lora}`);
      return [200, recorded()];
    }
    return [404, { error: { message: `no route ${route}` } }];
  }
}

const ready = { ready: () => Promise.resolve(), shutdown: () => Promise.resolve() } as unknown as SupervisedServer;

/** A one-layer model's config.json: enough for real adapter folders (the zero adapter's bytes). */
async function tinyModel(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gatelab-sglang-model-'));
  const config = {
    vocab_size: 16,
    hidden_size: 8,
    intermediate_size: 16,
    num_hidden_layers: 1,
    num_attention_heads: 2,
    max_position_embeddings: 64,
    rms_norm_eps: 1e-5,
    rope_theta: 10000,
  };
  await writeFile(path.join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}

/** A real adapter folder (seeded random factors), its version `<prefix>-<sha8>`. */
async function adapter(modelDir: string, prefix: string, seed: number): Promise<AdapterRef> {
  return writeRandomLoraAdapter(modelDir, await mkdtemp(path.join(tmpdir(), `gatelab-sglang-${prefix}-`)), seed, 0.12, prefix);
}

/** A client of the stand-in, its zero adapter loaded as after a server start. */
async function clientOf(standIn: SglangStandIn): Promise<{ client: SglangEngineClient; modelDir: string }> {
  standIn.server.listen(0, '127.0.0.1');
  await once(standIn.server, 'listening');
  const port = (standIn.server.address() as AddressInfo).port;
  const modelDir = await tinyModel();
  const workDir = await mkdtemp(path.join(tmpdir(), 'gatelab-sglang-work-'));
  const zeroAdapterDir = await writeZeroAdapter(modelDir, path.join(workDir, 'base-zero'));
  const info = { baseSha256: '0'.repeat(64), vocabSize: 16, maxPositions: 64, vocabulary: { texts: ['a'], control: [] } };
  const client = new SglangEngineClient({
    server: ready,
    endpoint: { baseUrl: `http://127.0.0.1:${port}`, apiKey: 'launch-token' },
    info,
    workDir,
    modelDir,
    zeroAdapterDir,
  });
  await client.restoreAdapters();
  return { client, modelDir };
}

describe('SglangEngineClient against a stand-in for SGLang’s routes', () => {
  let standIn: SglangStandIn | undefined;
  afterEach(async () => {
    standIn?.release();
    if (standIn) await new Promise((resolve) => standIn?.server.close(resolve));
  });

  it('sends prompt ids, raw log-prob fields and the version’s adapter with the token; a swap lets the request in flight finish on the old version', async () => {
    standIn = new SglangStandIn();
    const { client, modelDir } = await clientOf(standIn);

    const v1 = await adapter(modelDir, 'v1', 1);
    const v2 = await adapter(modelDir, 'v2', 2);
    expect(await client.setAdapter(v1)).toBe(v1.version);
    standIn.held = v1.version;
    const arrived = standIn.heldArrived();
    const old = client.generate(request);
    await arrived;
    expect(await client.setAdapter(v2)).toBe(v2.version);
    const fresh = await client.generate(request);
    expect(fresh.version).toBe(v2.version);
    standIn.release();
    expect((await old).version).toBe(v1.version);

    expect(standIn.events).toEqual([
      'load base',
      `load ${v1.version}`,
      `held ${v1.version}`,
      `load ${v2.version}`,
      `answered ${v2.version}`,
      `answered ${v1.version}`,
    ]);
    const generate = standIn.calls.find((c) => c.route === '/generate');
    expect(generate?.body).toMatchObject({
      input_ids: [10, 11, 12],
      return_logprob: true,
      logprob_start_len: -1,
      top_logprobs_num: 2,
      lora_path: v1.version,
      stream: false,
    });
    expect(standIn.calls.every((c) => c.authorization === 'Bearer launch-token')).toBe(true);
    expect(await client.countPromptTokens(request.messages)).toBe(3);
  }, 30_000);

  it("keeps the previous version loaded, so a probe's rounds swap between candidate and serving with no load, and unloads the one a third version replaces once its last request is done", async () => {
    standIn = new SglangStandIn();
    const { client, modelDir } = await clientOf(standIn);
    const serving = await adapter(modelDir, 'v3', 3);
    const candidate = await adapter(modelDir, 'v4', 4);
    const next = await adapter(modelDir, 'v5', 5);
    expect(await client.setAdapter(serving)).toBe(serving.version);
    // Three rounds, each the candidate's side then serving's, as EngineProbeSampler asks them.
    for (let round = 0; round < 3; round++) {
      expect(await client.setAdapter(candidate)).toBe(candidate.version);
      expect((await client.generate(request)).version).toBe(candidate.version);
      expect(await client.setAdapter(serving)).toBe(serving.version);
      expect((await client.generate(request)).version).toBe(serving.version);
    }
    expect(standIn.events.filter((e) => e.startsWith('load') || e.startsWith('unload'))).toEqual([
      'load base',
      `load ${serving.version}`,
      `load ${candidate.version}`,
    ]);

    // The next candidate replaces the old one as the version kept beside serving; one of
    // the old candidate's requests is still in flight, so it goes when that is done.
    expect(await client.setAdapter(candidate)).toBe(candidate.version);
    standIn.held = candidate.version;
    const arrived = standIn.heldArrived();
    const inFlight = client.generate(request);
    await arrived;
    expect(await client.setAdapter(serving)).toBe(serving.version);
    expect(await client.setAdapter(next)).toBe(next.version);
    expect(standIn.events).not.toContain(`unload ${candidate.version}`);
    standIn.release();
    expect((await inFlight).version).toBe(candidate.version);
    await expect.poll(() => standIn?.events.includes(`unload ${candidate.version}`)).toBe(true);
    expect(standIn.events.filter((e) => e.startsWith('unload'))).toEqual([`unload ${candidate.version}`]);
    // The version it replaced is loaded again when asked for (its folder staged anew).
    expect(await client.setAdapter(candidate)).toBe(candidate.version);
    expect(standIn.events.filter((e) => e === `load ${candidate.version}`)).toHaveLength(2);
  }, 30_000);

  it('refuses an adapter whose bytes do not hash to its sha256, without asking SGLang to load it', async () => {
    standIn = new SglangStandIn();
    const { client, modelDir } = await clientOf(standIn);
    const changed = await adapter(modelDir, 'v9', 9);
    // The bytes on disk changed after the gate hashed them: the engine re-hashes and refuses.
    await writeFile(changed.path, 'not the verified bytes');
    await expect(client.setAdapter(changed)).rejects.toBeInstanceOf(EngineError);
    expect(standIn.events).toEqual(['load base']);
    expect((await client.generate(request)).version).toBe('base');
  }, 30_000);

  it('turns SGLang’s refusal of a prompt beyond the context into context_length_exceeded', async () => {
    standIn = new SglangStandIn();
    const { client } = await clientOf(standIn);
    standIn.refuseGenerate = "The input (3000 tokens) is longer than the model's context length (2048 tokens).";
    await expect(client.generate(request)).rejects.toMatchObject({ code: 'context_length_exceeded' });
  }, 30_000);
});
