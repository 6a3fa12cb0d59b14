/**
 * The embedded inference engine: the policy's decode graph on
 * onnxruntime-node, with prefill + KV-cache decoding, continuous batching of
 * concurrent requests, the invisible calculator, seeded sampling, and LoRA
 * adapters swapped between requests (docs/internals.md, "The embedded engine worker").
 *
 * Batching: each request is prefilled alone, then joins the running decode
 * batch (left-padded, masked); every step feeds one token per row; rows leave
 * when they finish. All rows of a batch share one adapter.
 *
 * Adapter swaps: `setAdapter` loads and checks the new adapter, then replaces
 * `current`. A request snapshots `current` when it arrives and keeps it to
 * the end — queued or running, it finishes on the version it started with
 * and reports that version. A waiting request joins the batch only when its
 * adapter is the batch's; once the old version's rows have drained, the
 * batch restarts on the new one. So no request is dropped or mixed.
 *
 * Determinism: the reply is a function of (inputs, seed, adapter). Alone in
 * the engine it is bit-for-bit reproducible; in a batch with others, the
 * padding can change float rounding in the last bits of the attention sums,
 * which can flip a sampled token only when the random draw falls within
 * ~1e-7 of a boundary. `maxBatch: 1` makes it exact under concurrency too.
 */
import { randomInt } from 'node:crypto';
import { WorkerError } from '../../../processes/serveWorker';
import { calculatorCompletion } from './calculator';
import type {
  AdapterRef,
  EngineChatMessage,
  EngineHealth,
  GenerateParams,
  GenerateResult,
  GeneratedTokens,
  LoadResult,
  ScoreParams,
  ScoreResult,
} from './embeddedEngineProtocol';
import { KvBatch, type KvDims } from './kvCache';
import { baseAdapter, loadAdapter, type LoadedAdapter } from './loraAdapter';
import { SerialRunner, ort } from './ortSession';
import { loadPolicyModel, type PolicyModel } from './policyModel';
import { logSumExp, Sampler, SeededRng, selectTopK } from './sampler';

export interface EngineOptions {
  /** Rows decoded together at most; 1 disables batching. */
  readonly maxBatch?: number;
  /** ORT intra-op threads (see ortSession.ts). */
  readonly threads?: number;
}

type FinishReason = GenerateResult['finishReason'];

/** Streamed tokens are sent at most this often (see flushStream). */
const STREAM_INTERVAL_MS = 10;

/** One generate request, from arrival to its answer. */
interface GenerateJob {
  readonly params: GenerateParams;
  readonly promptIds: readonly number[];
  readonly adapter: LoadedAdapter;
  readonly seed: number;
  readonly rng: SeededRng;
  readonly onTokens: ((tokens: GeneratedTokens) => void) | undefined;
  readonly resolve: (result: GenerateResult) => void;
  readonly reject: (error: Error) => void;
  readonly tokenIds: number[];
  readonly logprobs: number[];
  readonly topIds: number[][];
  readonly topLogprobs: number[][];
  readonly forced: boolean[];
  /** Calculator tokens still to emit. */
  forcedQueue: number[];
  text: string;
  streamedUpTo: number;
  /** When the last progress message left (performance.now()); 0 = never, so the first token goes at once. */
  lastFlush: number;
  promptMs: number;
  decodeStart: number;
}

/** A job in the decode batch: its next token is picked but not yet fed. */
interface Row {
  readonly job: GenerateJob;
  pendingToken: number;
}

interface DecodeBatch {
  readonly adapter: LoadedAdapter;
  kv: KvBatch;
  rows: Row[];
}

export function withHint(messages: readonly EngineChatMessage[], hint: string | undefined): EngineChatMessage[] {
  if (hint === undefined) return [...messages];
  let last = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') last = i;
  });
  if (last < 0) throw new WorkerError('bad_request', 'a hint needs a user message to append to');
  return messages.map((m, i) => (i === last ? { role: m.role, content: `${m.content}\n\n${hint}` } : m));
}

function int64(values: readonly number[], dims: readonly number[]): ort.Tensor {
  return new ort.Tensor(
    'int64',
    BigInt64Array.from(values, (v) => BigInt(v)),
    dims,
  );
}

export class Engine {
  private current: LoadedAdapter;
  private readonly base: LoadedAdapter;
  private readonly queue: GenerateJob[] = [];
  private batch: DecodeBatch | null = null;
  private looping = false;
  private swaps: Promise<unknown> = Promise.resolve();
  private readonly runner: SerialRunner;
  private readonly sampler: Sampler;
  private readonly kvDims: KvDims;
  private readonly maxBatch: number;
  /** Scratch for top-K selection, reused for every token. */
  private readonly topIdsScratch = new Int32Array(20);
  private readonly topValuesScratch = new Float32Array(20);

  private constructor(
    readonly model: PolicyModel,
    options: EngineOptions,
  ) {
    this.base = baseAdapter(model.shape);
    this.current = this.base;
    this.runner = new SerialRunner(model.session);
    this.sampler = new Sampler(model.shape.vocabSize);
    this.kvDims = { layers: model.shape.numLayers, heads: model.shape.numHeads, headDim: model.headDim };
    this.maxBatch = Math.max(1, options.maxBatch ?? 8);
  }

  static async load(modelDir: string, options: EngineOptions = {}): Promise<Engine> {
    return new Engine(await loadPolicyModel(modelDir, options.threads), options);
  }

  get info(): LoadResult {
    const tokenizer = this.model.tokenizer;
    const ids = Array.from({ length: tokenizer.vocabSize }, (_, id) => id);
    return {
      baseSha256: this.model.baseSha256,
      vocabSize: this.model.shape.vocabSize,
      maxPositions: this.model.shape.maxPositions,
      vocabulary: {
        texts: ids.map((id) => tokenizer.tokenText(id)),
        // `<|eq|>` reads as "=" in a reply; the other specials are control tokens, shown by name.
        control: ids.filter((id) => tokenizer.isSpecial(id) && id !== tokenizer.eqId).map((id) => ({ id, name: tokenizer.vocab[id] ?? `<|${id}|>` })),
      },
    };
  }

  /** The prompt's length under the chat template, generation prompt included (what generate counts as promptTokens). */
  countPromptTokens(messages: readonly EngineChatMessage[]): number {
    return this.model.tokenizer.encodeChat(messages).length;
  }

  health(): EngineHealth {
    return { ok: true, version: this.current.version, pending: this.queue.length + (this.batch?.rows.length ?? 0) };
  }

  get version(): string {
    return this.current.version;
  }

  /** Loads and checks an adapter (null = the base); requests arriving from now on use it. */
  async setAdapter(ref: AdapterRef | null): Promise<string> {
    // Swaps apply in the order they were asked for, even if an earlier blob loads slower.
    const swap = this.swaps.then(async () => {
      const next = ref === null ? this.base : await loadAdapter(this.model.shape, ref);
      this.current = next;
      return next.version;
    });
    this.swaps = swap.catch(() => undefined);
    return swap;
  }

  generate(params: GenerateParams, onTokens?: (tokens: GeneratedTokens) => void): Promise<GenerateResult> {
    const tokenizer = this.model.tokenizer;
    const promptIds = tokenizer.encodeChat(withHint(params.messages, params.hint));
    const maxPositions = this.model.shape.maxPositions;
    if (promptIds.length >= maxPositions) {
      return Promise.reject(
        new WorkerError(
          'context_length_exceeded',
          `the prompt is ${promptIds.length} tokens; this model's context is ${maxPositions} tokens and the reply needs at least 1`,
        ),
      );
    }
    // crypto.randomInt needs max - min < 2^48.
    const seed = params.seed ?? randomInt(0, 2 ** 48 - 1);
    return new Promise<GenerateResult>((resolve, reject) => {
      this.queue.push({
        params,
        promptIds,
        adapter: this.current,
        seed,
        rng: new SeededRng(seed),
        onTokens,
        resolve,
        reject,
        tokenIds: [],
        logprobs: [],
        topIds: [],
        topLogprobs: [],
        forced: [],
        forcedQueue: [],
        text: '',
        streamedUpTo: 0,
        lastFlush: 0,
        promptMs: 0,
        decodeStart: 0,
      });
      this.kick();
    });
  }

  /** Log-probs (raw logits) and top-K of a given response, one forward pass. */
  async score(params: ScoreParams): Promise<ScoreResult> {
    const promptIds = this.model.tokenizer.encodeChat(withHint(params.messages, params.hint));
    const vocab = this.model.shape.vocabSize;
    const bad = params.responseTokenIds.find((id) => id >= vocab);
    if (bad !== undefined) throw new WorkerError('bad_request', `response token id ${bad} is outside the vocabulary (${vocab})`);
    const ids = [...promptIds, ...params.responseTokenIds];
    if (ids.length > this.model.shape.maxPositions) {
      throw new WorkerError(
        'context_length_exceeded',
        `prompt (${promptIds.length}) + response (${params.responseTokenIds.length}) tokens exceed the context of ${this.model.shape.maxPositions}`,
      );
    }
    const adapter = params.adapter === 'base' ? this.base : this.current;
    const data = (await this.forward(adapter, ids)).logits?.data as Float32Array;
    const result: ScoreResult = { logprobs: [], topIds: [], topLogprobs: [], version: adapter.version };
    params.responseTokenIds.forEach((token, t) => {
      const position = promptIds.length - 1 + t;
      const row = data.subarray(position * vocab, (position + 1) * vocab);
      const lse = logSumExp(row);
      result.logprobs.push((row[token] as number) - lse);
      const [ids, values] = this.topK(row, params.logprobsTopK, lse);
      result.topIds.push(ids);
      result.topLogprobs.push(values);
    });
    return result;
  }

  /** One uncached forward pass of a single sequence; its output holds the logits and the cache. */
  private async forward(adapter: LoadedAdapter, ids: readonly number[]): Promise<ort.InferenceSession.ReturnType> {
    try {
      return await this.runner.run({
        ...this.model.baseFeeds,
        ...adapter.feeds,
        input_ids: int64(ids, [1, ids.length]),
        position_ids: int64(
          ids.map((_, i) => i),
          [1, ids.length],
        ),
        attention_mask: int64(
          ids.map(() => 1),
          [1, ids.length],
        ),
        ...KvBatch.emptyRowFeeds(this.kvDims, this.model.cacheLayout),
      });
    } catch (error) {
      throw new WorkerError('engine_error', `forward pass failed: ${(error as Error).message}`);
    }
  }

  private topK(row: Float32Array, k: number, lse: number): [number[], number[]] {
    const n = selectTopK(row, k, this.topIdsScratch, this.topValuesScratch);
    const ids: number[] = [];
    const values: number[] = [];
    for (let i = 0; i < n; i += 1) {
      ids.push(this.topIdsScratch[i] as number);
      values.push((this.topValuesScratch[i] as number) - lse);
    }
    return [ids, values];
  }

  private kick(): void {
    if (this.looping) return;
    this.looping = true;
    this.loop()
      .catch((error: unknown) => {
        // The loop handles its own errors; anything here is a bug — fail every waiting request loudly.
        const failure = new WorkerError('engine_error', `decode loop failed: ${(error as Error).message}`);
        for (const row of this.batch?.rows ?? []) row.job.reject(failure);
        for (const job of this.queue.splice(0)) job.reject(failure);
        this.batch = null;
      })
      .finally(() => {
        this.looping = false;
        if (this.queue.length > 0) this.kick();
      });
  }

  private async loop(): Promise<void> {
    for (;;) {
      await this.admit();
      const batch = this.batch;
      if (!batch || batch.rows.length === 0) {
        this.batch = null;
        if (this.queue.length === 0) return;
        continue;
      }
      await this.step(batch);
    }
  }

  /** Prefills waiting requests that can join the batch (same adapter, room left). */
  private async admit(): Promise<void> {
    for (;;) {
      if (this.batch && this.batch.rows.length >= this.maxBatch) return;
      const adapter = this.batch?.adapter ?? this.queue[0]?.adapter;
      const index = this.queue.findIndex((job) => job.adapter === adapter);
      if (index < 0 || adapter === undefined) return;
      const [job] = this.queue.splice(index, 1) as [GenerateJob];
      const started = performance.now();
      let prefill: ort.InferenceSession.ReturnType;
      try {
        prefill = await this.forward(job.adapter, job.promptIds);
      } catch (error) {
        job.reject(error as Error);
        continue;
      }
      job.promptMs = performance.now() - started;
      job.decodeStart = performance.now();
      const vocab = this.model.shape.vocabSize;
      const last = job.promptIds.length - 1;
      const row: Row = { job, pendingToken: -1 };
      const finished = this.pick(row, (prefill.logits?.data as Float32Array).subarray(last * vocab, (last + 1) * vocab));
      this.flushStream(job);
      if (finished !== null) {
        this.finish(job, finished);
        continue;
      }
      if (!this.batch) this.batch = { adapter, kv: KvBatch.empty(this.kvDims, this.model.cacheLayout), rows: [] };
      this.batch.kv = this.batch.kv.withRow(prefill);
      this.batch.rows.push(row);
    }
  }

  /** One decode step: feed every row's pending token, pick each row's next one. */
  private async step(batch: DecodeBatch): Promise<void> {
    const rows = batch.rows;
    let output: ort.InferenceSession.ReturnType;
    try {
      output = await this.runner.run({
        ...this.model.baseFeeds,
        ...batch.adapter.feeds,
        input_ids: int64(
          rows.map((r) => r.pendingToken),
          [rows.length, 1],
        ),
        position_ids: int64(
          rows.map((r) => r.job.promptIds.length + r.job.tokenIds.length - 1),
          [rows.length, 1],
        ),
        attention_mask: batch.kv.attentionMask(1),
        ...batch.kv.feeds(),
      });
      batch.kv = batch.kv.advance(output);
    } catch (error) {
      const failure = new WorkerError('engine_error', `decode step failed: ${(error as Error).message}`);
      for (const row of rows) row.job.reject(failure);
      this.batch = null;
      return;
    }
    const logits = (output.logits as ort.Tensor).data as Float32Array;
    const vocab = this.model.shape.vocabSize;
    const keep: number[] = [];
    rows.forEach((row, b) => {
      let finished: FinishReason | null;
      try {
        finished = this.pick(row, logits.subarray(b * vocab, (b + 1) * vocab));
      } catch (error) {
        row.job.reject(new WorkerError('engine_error', (error as Error).message));
        return;
      }
      this.flushStream(row.job);
      if (finished === null) keep.push(b);
      else this.finish(row.job, finished);
    });
    batch.kv = batch.kv.keepRows(keep);
    batch.rows = keep.map((b) => rows[b] as Row);
  }

  /**
   * Chooses the row's next token from the logits that predict it — a forced
   * calculator token if one is due, else a sample — and records its raw
   * log-prob and top-K. Returns why the reply ended, or null to go on.
   */
  private pick(row: Row, logits: Float32Array): FinishReason | null {
    const { job } = row;
    const tokenizer = this.model.tokenizer;
    const lse = logSumExp(logits);
    if (!Number.isFinite(lse)) throw new Error('the model produced non-finite logits');
    const forcedToken = job.forcedQueue.shift();
    const token = forcedToken ?? this.sampler.sample(logits, job.params.sampling, job.rng);
    job.tokenIds.push(token);
    job.logprobs.push((logits[token] as number) - lse);
    const [ids, values] = this.topK(logits, job.params.logprobsTopK, lse);
    job.topIds.push(ids);
    job.topLogprobs.push(values);
    job.forced.push(forcedToken !== undefined);
    if (forcedToken === undefined && token === tokenizer.eqId) {
      const completion = calculatorCompletion(job.text);
      if (completion !== null) job.forcedQueue = tokenizer.encode(completion);
    }
    job.text += tokenizer.tokenText(token);
    row.pendingToken = token;

    if (forcedToken === undefined && token === tokenizer.endId) return 'stop';
    if (job.tokenIds.length >= job.params.sampling.maxTokens) return 'length';
    if (job.promptIds.length + job.tokenIds.length >= this.model.shape.maxPositions) return 'length';
    return null;
  }

  /**
   * Sends the tokens not yet streamed. Coalesced: at most one message per
   * STREAM_INTERVAL_MS (the first token and the last always go at once),
   * because each message costs both processes an IPC wake-up and a parse —
   * per token that is 10–15 % of a decode step.
   */
  private flushStream(job: GenerateJob, final = false): void {
    if (!job.onTokens || job.streamedUpTo === job.tokenIds.length) return;
    const now = performance.now();
    if (!final && job.lastFlush !== 0 && now - job.lastFlush < STREAM_INTERVAL_MS) return;
    job.lastFlush = now;
    const from = job.streamedUpTo;
    job.streamedUpTo = job.tokenIds.length;
    const tokenIds = job.tokenIds.slice(from);
    job.onTokens({
      tokenIds,
      text: this.model.tokenizer.decode(tokenIds),
      logprobs: job.logprobs.slice(from),
      topIds: job.topIds.slice(from),
      topLogprobs: job.topLogprobs.slice(from),
      forced: job.forced.slice(from),
    });
  }

  private finish(job: GenerateJob, finishReason: FinishReason): void {
    this.flushStream(job, true);
    job.resolve({
      tokenIds: job.tokenIds,
      text: job.text,
      logprobs: job.logprobs,
      topIds: job.topIds,
      topLogprobs: job.topLogprobs,
      forced: job.forced,
      finishReason,
      promptTokens: job.promptIds.length,
      completionTokens: job.tokenIds.length,
      version: job.adapter.version,
      seed: job.seed,
      timings: { promptMs: job.promptMs, decodeMs: performance.now() - job.decodeStart },
    });
  }
}
