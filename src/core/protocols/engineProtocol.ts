/**
 * The engine protocol: what the lab asks of any inference engine — the
 * embedded onnxruntime engine, a vLLM or SGLang server — and what it gets
 * back (docs/internals.md, "Seams"). Defined once, here; every backend
 * imports it, and nothing here knows a backend.
 *
 * Params are strict objects (a misspelt field is an error); results are
 * plain objects (fields a backend adds beyond these are dropped, not refused).
 *
 * Two layers:
 * - `EngineClient` is the lab's only view of an engine (the gateway, the
 *   serving state, the gate's probes and the bad-candidate rollouts use
 *   nothing else). A backend implements it however it reaches its engine.
 * - `engineRpcProtocol` is the same contract as supervisor RPC, for engines
 *   that run as supervised worker processes (Node IPC, or JSON lines on
 *   stdin/stdout for a non-Node program): `{id, method, params}` →
 *   `{id, progress}`* then `{id, result}` | `{id, error: {code, message}}`,
 *   after the worker's first line `{ready: true, pid}`
 *   (src/processes/workerMessages.ts). Both sides validate with these
 *   schemas: an engine is another process, its answers are untrusted input.
 *
 * Conventions every engine keeps (the trainer relies on them):
 * - **Response tokens** are every token the engine emitted after the prompt,
 *   in order, **including the final end-of-turn token when finishReason is
 *   `stop`** (`text` never contains it). Nothing is dropped or merged.
 * - **Log-probs are raw**: `logprobs[t]` is log_softmax of the model's logits
 *   at position t *before* temperature, top-k or top-p (temperature 1, the
 *   whole vocabulary), read at the emitted token. `topIds[t]` /
 *   `topLogprobs[t]` are the K best tokens of that same raw distribution,
 *   best first. (vLLM: `logprobs_mode: raw_logprobs`.)
 * - **The chat template** is the engine's own (the model's); the prompt is
 *   the template applied to `messages` with the generation prompt appended.
 *   A trainer rebuilding the prompt must apply the same template — or use
 *   `promptIds` when the engine reports them.
 * - **Versions**: every reply names the adapter version that produced it —
 *   the one loaded when the request arrived, even if a swap happened since.
 */
import { z } from 'zod';
import { sha256Schema } from '../weights/weightIds';
import type { RpcProtocol } from './rpcProtocol';

const sha256 = sha256Schema;

/** One chat message, OpenAI's roles. The lab never adds a system prompt of its own. */
export const chatMessageSchema = z.strictObject({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/**
 * Tool calling, OpenAI's function tools. Optional for an engine
 * (`EngineClient.toolCalling`): the lab's own traffic (sessions, probes,
 * rollouts) never uses tools; the gateway passes an agent's tools to an
 * engine that can call them. Names and shapes follow OpenAI's so a request
 * travels unchanged to an engine that speaks OpenAI's API.
 */
export const toolDefinitionSchema = z.strictObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, underscores or dashes'),
  description: z.string().optional(),
  /** A JSON Schema object describing the arguments. */
  parameters: z.record(z.string(), z.unknown()).optional(),
  strict: z.boolean().nullable().optional(),
});
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

/** `auto`: the model decides; `required`: at least one call; `{name}`: exactly that function; `none`: text only. */
export type ToolChoice = 'none' | 'auto' | 'required' | { name: string };

/** One call the model made: `arguments` is the JSON text the model wrote (OpenAI's convention). */
export const toolCallSchema = z.object({ id: z.string().min(1), name: z.string().min(1), arguments: z.string() });
export type ToolCall = z.infer<typeof toolCallSchema>;

/**
 * A message of a conversation with tools: the plain chat messages, an
 * assistant turn that called tools, and a tool's result.
 */
export type ConversationMessage =
  ChatMessage | { role: 'assistant'; content: string; toolCalls: ToolCall[] } | { role: 'tool'; content: string; toolCallId: string };

/** The tools offered with one request. */
export type ToolUse = { tools: ToolDefinition[]; choice: ToolChoice; parallelToolCalls: boolean | null };

/** The recipe's defaults (docs/design.md, The objective): T 0.6, top-p 0.95, top-k 20. */
export const DEFAULT_SAMPLING = { temperature: 0.6, topP: 0.95, topK: 20 } as const;

export const samplingSchema = z.strictObject({
  temperature: z.number().min(0).max(100).default(DEFAULT_SAMPLING.temperature),
  topP: z.number().gt(0).max(1).default(DEFAULT_SAMPLING.topP),
  /** 0 disables top-k. */
  topK: z.int().min(0).default(DEFAULT_SAMPLING.topK),
  /** Response tokens at most, every emitted token counted (the end-of-turn token, the embedded engine's forced tokens). */
  maxTokens: z.int().min(1).default(512),
});
export type Sampling = z.infer<typeof samplingSchema>;

/** K of the top-K per position: OPD uses 4; 20 is more than any recipe needs. 0 = none. */
const topKSchema = z.int().min(0).max(20);

/**
 * An adapter to load: a LoRA adapter in PEFT's format from the run's weight
 * store (docs/internals.md, "Candidates and the weight store").
 */
export const adapterRefSchema = z.strictObject({
  /** `v<step>-<first 8 hex of sha256>` (the lab checks it; the engine reports it back in every reply). */
  version: z.string().min(1),
  /** The adapter's safetensors bytes (`weights/blobs/<sha256>.safetensors`): PEFT's `adapter_model.safetensors`. */
  path: z.string().min(1),
  /** The engine re-hashes the bytes it reads and refuses a mismatch (`adapter_hash_mismatch`). */
  sha256,
  /**
   * The version's PEFT `adapter_config.json` (`weights/versions/<version>/`),
   * for engines that load a PEFT folder (vLLM's `load_lora_adapter` wants
   * `adapter_config.json` + `adapter_model.safetensors` side by side).
   */
  adapterConfigPath: z.string().min(1).optional(),
  /**
   * The LoRA alpha the gate verified (scale = alpha / rank). When the blob's
   * safetensors `__metadata__` also names `lora_alpha`, the two must agree.
   */
  loraAlpha: z.number().positive().optional(),
});
export type AdapterRef = z.infer<typeof adapterRefSchema>;

/**
 * How token ids read, reported once at load so the gateway can write
 * OpenAI's `logprobs` (token strings) without a tokenizer of its own.
 */
export const vocabularySchema = z.object({
  /** Index = token id: the text the token adds to a reply ('' for control tokens). */
  texts: z.array(z.string()).min(1),
  /** Tokens that are not reply text (end of turn, padding, role markers), with the name shown for them among top log-probs. */
  control: z.array(z.object({ id: z.int().min(0), name: z.string().min(1) })),
});
export type Vocabulary = z.infer<typeof vocabularySchema>;

export const loadParamsSchema = z.strictObject({
  /** The model folder: the embedded policy's, or a Hugging Face folder (config.json, *.safetensors, tokenizer). */
  modelDir: z.string().min(1),
});

/** What an engine reports once its model is loaded. */
export const engineInfoSchema = z.object({
  /**
   * The base model's identity: the sha256 the run recorded at its start
   * (`run-started.baseVersion.sha256`) and every candidate's manifest names
   * (`baseModelSha256`). An engine on another base is refused.
   */
  baseSha256: sha256,
  vocabSize: z.int().positive(),
  /** The context length, prompt and response together. */
  maxPositions: z.int().positive(),
  vocabulary: vocabularySchema,
});
export type EngineInfo = z.infer<typeof engineInfoSchema>;

export const setAdapterParamsSchema = adapterRefSchema.nullable();
/** `version` is what is loaded now: the ref's version, or `base` for null. */
export const setAdapterResultSchema = z.object({ version: z.string().min(1) });

export const generateParamsSchema = z.strictObject({
  /** The conversation so far, ending with the user message the reply answers. */
  messages: z.array(chatMessageSchema).min(1),
  sampling: samplingSchema.default(samplingSchema.parse({})),
  /** Any safe integer; absent = a random seed, reported back. Same seed + inputs + adapter = same reply (as far as the engine can promise). */
  seed: z.int().optional(),
  /** K of topIds/topLogprobs per position (0 = none). */
  logprobsTopK: topKSchema.default(4),
  /** Send tokens as they are decoded, as progress messages (`generatedTokensSchema`). */
  stream: z.boolean().default(false),
});
export type GenerateParams = z.infer<typeof generateParamsSchema>;

/** Per-token fields, shared by streamed progress and the final result (concatenated progress = the result's). */
export const generatedTokensSchema = z.object({
  /** Response token ids (see the conventions above: the final end-of-turn token included when finishReason is `stop`). */
  tokenIds: z.array(z.int().min(0)),
  /** The decoded text of these tokens (never the end-of-turn token's). */
  text: z.string(),
  /** Raw log-prob of each token (temperature 1, no top-k/top-p), ≤ 0. */
  logprobs: z.array(z.number()),
  /** The K best ids of the same raw distribution at each position, best first. */
  topIds: z.array(z.array(z.int().min(0))),
  topLogprobs: z.array(z.array(z.number())),
  /**
   * Embedded engine only: true for calculator tokens the engine inserted
   * itself (not sampled). Trainers exclude them from every loss term. Absent
   * = no token was forced (every other engine).
   */
  forced: z.array(z.boolean()).optional(),
});
export type GeneratedTokens = z.infer<typeof generatedTokensSchema>;

export const generateResultSchema = generatedTokensSchema.extend({
  finishReason: z.enum(['stop', 'length']),
  promptTokens: z.int().nonnegative(),
  completionTokens: z.int().nonnegative(),
  /**
   * Optional: the prompt token ids the engine built (template + generation
   * prompt). When present, a trainer may train on them instead of applying
   * its own template to the messages. The embedded engine does not send them.
   */
  promptIds: z.array(z.int().min(0)).optional(),
  /** The adapter version that produced this reply — the one loaded when the request arrived. */
  version: z.string().min(1),
  seed: z.int(),
  timings: z.object({ promptMs: z.number(), decodeMs: z.number() }),
  /**
   * Tool-calling engines only: the calls the model made, parsed from its
   * tokens (which stay the reply's tokens, as always). Absent or empty = none.
   */
  toolCalls: z.array(toolCallSchema).optional(),
});
export type GenerateResult = z.infer<typeof generateResultSchema>;

export const countPromptTokensParamsSchema = z.strictObject({ messages: z.array(chatMessageSchema).min(1) });
/** Tokens of the chat template for these messages, generation prompt included: what a generate with them would count as promptTokens. */
export const countPromptTokensResultSchema = z.object({ tokens: z.int().nonnegative() });

export const healthParamsSchema = z.strictObject({});
export const engineHealthSchema = z.object({
  /** True when the model is loaded and requests are answered. */
  ok: z.boolean(),
  /** The adapter version loaded now (`base` = none); null before load. */
  version: z.string().nullable(),
  /** Requests queued or decoding. */
  pending: z.int().nonnegative(),
});
export type EngineHealth = z.infer<typeof engineHealthSchema>;

/** The engine contract as supervisor RPC (a backend may add methods of its own by spreading this object). */
export const engineRpcProtocol = {
  load: { params: loadParamsSchema, result: engineInfoSchema },
  setAdapter: { params: setAdapterParamsSchema, result: setAdapterResultSchema },
  generate: { params: generateParamsSchema, result: generateResultSchema, progress: generatedTokensSchema },
  countPromptTokens: { params: countPromptTokensParamsSchema, result: countPromptTokensResultSchema },
  health: { params: healthParamsSchema, result: engineHealthSchema },
} as const satisfies RpcProtocol;
export type EngineRpcProtocol = typeof engineRpcProtocol;

/** Error codes engines answer with (besides the supervisor's timeout, crashed, not_running, bad_response, start_failed). */
export const ENGINE_ERROR_CODES = [
  'not_loaded',
  'context_length_exceeded',
  'bad_adapter',
  'adapter_hash_mismatch',
  'bad_request',
  'engine_error',
  'unknown_method',
  /** The caller's `stop` aborted the reply (EngineClient.generate). */
  'stopped',
] as const;
export type EngineErrorCode = (typeof ENGINE_ERROR_CODES)[number];

/**
 * The roles an engine plays in a run: `serving` answers the gateway (the
 * promoted version only); `probe` samples candidates for the gate, isolated
 * from serving. They are always separate engines.
 */
export type EngineRole = 'serving' | 'probe';

/** Sampling as the lab sends it (every field explicit). */
export type SamplingParams = { temperature: number; topP: number; topK: number; maxTokens: number };

/** A generate request as the lab makes it (every field explicit). */
export type GenerateRequest = {
  messages: ChatMessage[];
  sampling: SamplingParams;
  seed: number;
  logprobsTopK: number;
};

/** A generate request with tools, for an engine that can call them. */
export type ToolGenerateRequest = Omit<GenerateRequest, 'messages'> & { messages: ConversationMessage[]; toolUse: ToolUse };

/**
 * What an engine that can call tools adds (an engine without it answers in
 * text only): generation and prompt counting with the tools rendered into
 * the prompt by the engine's chat template.
 */
export interface ToolCallingEngine {
  generate(request: ToolGenerateRequest, onTokens?: (tokens: GeneratedTokens) => void): Promise<GenerateResult>;
  /** The prompt's length with these tools offered (the template renders them). */
  countPromptTokens(messages: readonly ConversationMessage[], tools: readonly ToolDefinition[]): Promise<number>;
}

/**
 * The lab's view of one running engine (one role: serving, probe). Every
 * method rejects with `EngineError` (its `code` one of ENGINE_ERROR_CODES or
 * the supervisor's) rather than returning a partial answer.
 */
export interface EngineClient {
  /** What the engine reported when its model loaded. */
  readonly info: EngineInfo;
  /**
   * `onTokens` receives new tokens as they are decoded (the engine streams them).
   * `stop`, when it aborts, asks the engine to stop decoding this reply: an engine
   * that can (vLLM) stops and rejects with `stopped`, the reply so far being what
   * `onTokens` received; one that cannot finishes the reply and resolves as usual.
   */
  generate(request: GenerateRequest, onTokens?: (tokens: GeneratedTokens) => void, stop?: AbortSignal): Promise<GenerateResult>;
  /**
   * Loads and hash-checks an adapter (null = the base model); resolves with
   * the version now loaded. Requests that arrived before finish on the
   * version they started with; later ones use the new one.
   */
  setAdapter(adapter: AdapterRef | null): Promise<string>;
  /** The prompt's length in tokens under the engine's chat template (generation prompt included). */
  countPromptTokens(messages: readonly ChatMessage[]): Promise<number>;
  health(): Promise<EngineHealth>;
  close(): Promise<void>;
  /** Present only on an engine that can call tools. */
  readonly toolCalling?: ToolCallingEngine;
}

/** An error an engine (or its supervisor) answered with. */
export class EngineError extends Error {
  override readonly name = 'EngineError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
