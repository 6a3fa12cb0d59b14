/**
 * `POST /v1/chat/completions`, from a parsed JSON body to a response:
 * validate → resolve sampling → refuse a context overflow → take a serving
 * lease → generate (streamed or not) → record the turn → answer, naming
 * the version that produced the reply.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { randomInt } from 'node:crypto';
import {
  parseChatCompletionRequest,
  requestedTools,
  toEngineMessages,
  usesToolMessages,
  type ChatCompletionRequest,
  type EngineChatMessage,
} from './chatCompletionRequest';
import {
  chatCompletion,
  chatCompletionChunk,
  finishReasonOf,
  logprobsContent,
  toolCallDeltas,
  newCompletionFrame,
  usageOf,
  type CompletionFrame,
} from './chatCompletionResponse';
import {
  EngineError,
  type ChatMessage,
  type EngineClient,
  type GenerateResult,
  type GeneratedTokens,
  type SamplingParams,
  type ToolCallingEngine,
  type ToolUse,
} from '../../core/protocols/engineProtocol';
import type { GatewayTokenizer } from '../../core/protocols/gatewayTokenizer';
import { badRequest, notFound, OpenAiError, serverError, toOpenAiError } from './openAiError';
import type { ServingLease, ServingState } from '../../run/servingState';
import { SseWriter } from './sseWriter';
import { parseTurnHeaders, type TurnHeaders } from './turnHeaders';
import type { TurnLog, TurnRecord } from '../../run/turnLog';

export const VERSION_HEADER = 'X-GateLab-Version';

export type DefaultSampling = { temperature: number; topP: number; topK: number };

export type ChatCompletionContext = {
  engine: EngineClient;
  serving: ServingState;
  tokenizer: GatewayTokenizer;
  turnLog: TurnLog;
  modelId: string;
  /** The recipe's sampling, used for every field the request leaves out. */
  defaultSampling: DefaultSampling;
  /** Top-K always captured for the turn log (the OPD term needs it), whatever the client asked. */
  turnLogTopK: number;
};

/** Resolved once per request; everything the engine call and the turn record need. */
type PreparedRequest = {
  request: ChatCompletionRequest;
  turn: TurnHeaders;
  messages: EngineChatMessage[];
  /** How the request is generated: in text, or with its tools by an engine that can call them. */
  generation: Generation;
  sampling: SamplingParams;
  seed: number;
  promptTokens: number;
  returnLogprobs: boolean;
  topLogprobs: number;
};

type ParsedRequest = Pick<PreparedRequest, 'request' | 'turn' | 'messages' | 'generation'>;

/**
 * `text`: the engine answers in text, from plain chat messages (an engine
 * that cannot call tools, or a request without tools). `tools`: the engine
 * renders the tools and any tool turns with its chat template and may answer
 * with calls.
 */
type Generation = { kind: 'text'; messages: ChatMessage[] } | { kind: 'tools'; engine: ToolCallingEngine; toolUse: ToolUse };

/** Validates the body and the headers (400/404 before anything waits on the engine). */
function parseChatCompletion(ctx: ChatCompletionContext, body: unknown, headers: IncomingHttpHeaders): ParsedRequest {
  const request = parseChatCompletionRequest(body);
  const turn = parseTurnHeaders(headers);
  if (request.model !== ctx.modelId) {
    throw notFound(`The model '${request.model}' does not exist; this gateway serves '${ctx.modelId}'.`, 'model_not_found', 'model');
  }
  const messages = toEngineMessages(request.messages);
  return { request, turn, messages, generation: planGeneration(ctx.engine, request, messages) };
}

/**
 * Decides how tools are honoured. An engine that can call tools gets them
 * (and the conversation's tool turns) as they are. An engine that cannot
 * answers in text with the tools left out of its prompt: its chat template
 * has no place for them, and rendering them as made-up prose would put a
 * prompt the model never saw into the turns it trains on. What it cannot do
 * honestly is refused: a forced call (`required`, a named function) and a
 * conversation that already holds tool calls or results.
 */
function planGeneration(engine: EngineClient, request: ChatCompletionRequest, messages: EngineChatMessage[]): Generation {
  const offered = requestedTools(request);
  const toolTurns = usesToolMessages(messages);
  if (engine.toolCalling && (offered || toolTurns)) {
    return {
      kind: 'tools',
      engine: engine.toolCalling,
      toolUse: { tools: offered?.tools ?? [], choice: offered?.choice ?? 'none', parallelToolCalls: request.parallel_tool_calls ?? null },
    };
  }
  if (offered && offered.choice !== 'auto' && offered.choice !== 'none') {
    const asked = typeof offered.choice === 'string' ? `"${offered.choice}"` : `the function '${offered.choice.name}'`;
    throw badRequest(
      `The model served here cannot call tools, so tool_choice ${asked} cannot be honoured. Send tool_choice "auto" or "none" (the reply is text), or leave tools out.`,
      'tool_choice',
      'tool_calls_unsupported',
    );
  }
  const plain: ChatMessage[] = [];
  for (const [i, message] of messages.entries()) {
    if (message.role === 'tool' || 'toolCalls' in message) {
      throw badRequest(
        `The model served here cannot call tools, so a conversation cannot hold tool calls or tool results (messages[${i}]).`,
        `messages.${i}`,
        'tool_calls_unsupported',
      );
    }
    plain.push(message);
  }
  return { kind: 'text', messages: plain };
}

/** The prompt's length as the engine that answers will build it. */
function countPrompt(ctx: ChatCompletionContext, generation: Generation, messages: readonly EngineChatMessage[]): Promise<number> {
  return generation.kind === 'tools'
    ? generation.engine.countPromptTokens(messages, generation.toolUse.tools)
    : ctx.tokenizer.countPromptTokens(generation.messages);
}

/**
 * Sizes the request against the context, with the prompt counted by the
 * serving engine itself (its chat template): refuses an overflow, and gives a
 * request without max_tokens the rest of the context.
 */
async function fitToContext(ctx: ChatCompletionContext, { request, turn, messages, generation }: ParsedRequest): Promise<PreparedRequest> {
  const promptTokens = await countPrompt(ctx, generation, messages);
  const maxPositions = ctx.tokenizer.maxPositions;
  const requestedMax = request.max_completion_tokens ?? request.max_tokens ?? null;
  const room = maxPositions - promptTokens;
  if (room < 1 || (requestedMax !== null && requestedMax > room)) {
    const asked = requestedMax ?? 1;
    throw badRequest(
      `This model's maximum context length is ${maxPositions} tokens. However, you requested ${promptTokens + asked} tokens ` +
        `(${promptTokens} in the messages, ${asked} in the completion). Please reduce the length of the messages or completion.`,
      'messages',
      'context_length_exceeded',
    );
  }
  const topK = request.top_k == null ? ctx.defaultSampling.topK : request.top_k <= 0 ? 0 : request.top_k;
  return {
    request,
    turn,
    messages,
    generation,
    sampling: {
      temperature: request.temperature ?? ctx.defaultSampling.temperature,
      topP: request.top_p ?? ctx.defaultSampling.topP,
      topK,
      // Like OpenAI: without a limit, the completion may use the rest of the context.
      maxTokens: requestedMax ?? room,
    },
    // A seed is always sent and recorded, so every turn can be replayed.
    seed: request.seed ?? randomInt(0, 2 ** 32 - 1),
    promptTokens,
    returnLogprobs: request.logprobs === true,
    topLogprobs: request.top_logprobs ?? 0,
  };
}

export async function handleChatCompletion(
  ctx: ChatCompletionContext,
  body: unknown,
  headers: IncomingHttpHeaders,
  response: ServerResponse,
  receivedAt: number,
): Promise<void> {
  const parsed = parseChatCompletion(ctx, body, headers);
  const lease = await ctx.serving.acquire();
  try {
    // Counted under the lease: the engine that counts is the one that will answer.
    const prepared = await fitToContext(ctx, parsed);
    if (prepared.request.stream) await streamCompletion(ctx, prepared, lease, response, receivedAt);
    else await answerCompletion(ctx, prepared, lease, response, receivedAt);
  } finally {
    lease.release();
  }
}

async function answerCompletion(
  ctx: ChatCompletionContext,
  prepared: PreparedRequest,
  lease: ServingLease,
  response: ServerResponse,
  receivedAt: number,
): Promise<void> {
  const frame = newCompletionFrame(ctx.modelId, lease.serving.version);
  const engineStart = performance.now();
  const result = await generateOnLease(ctx, prepared, lease);
  const engineMs = performance.now() - engineStart;
  // A reply the client never received is not a turn of its session.
  if (response.destroyed) return;
  await ctx.turnLog.append(turnRecord(ctx, { frame, prepared, lease, result, stream: false }, { receivedAt, engineStart, engineMs, firstTokenMs: null }));
  const logprobs = prepared.returnLogprobs ? { content: logprobsContent(result, ctx.tokenizer, prepared.topLogprobs), refusal: null } : null;
  const completion = chatCompletion(
    frame,
    { text: result.text, toolCalls: result.toolCalls ?? [] },
    logprobs,
    finishReasonOf(result, toolChoiceOf(prepared)),
    usageOf(result.promptTokens, result.completionTokens),
  );
  response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', [VERSION_HEADER]: lease.serving.version });
  response.end(JSON.stringify(completion));
}

async function streamCompletion(
  ctx: ChatCompletionContext,
  prepared: PreparedRequest,
  lease: ServingLease,
  response: ServerResponse,
  receivedAt: number,
): Promise<void> {
  const frame = newCompletionFrame(ctx.modelId, lease.serving.version);
  const includeUsage = prepared.request.stream_options?.include_usage === true;
  const usageField = includeUsage ? null : undefined;
  const sse = new SseWriter(response, { [VERSION_HEADER]: lease.serving.version });
  let streamedAny = false;
  let firstTokenMs: number | null = null;

  const sendTokens = (tokens: GeneratedTokens): void => {
    const content = tokens.text;
    const logprobs = prepared.returnLogprobs ? { content: logprobsContent(tokens, ctx.tokenizer, prepared.topLogprobs), refusal: null } : null;
    if (content === '' && (logprobs === null || logprobs.content.length === 0)) return;
    sse.send(chatCompletionChunk(frame, { index: 0, delta: { content }, logprobs, finish_reason: null }, usageField));
  };
  const openStream = (): void => {
    if (sse.opened) return;
    // The first chunk carries the role, as OpenAI's does.
    sse.send(chatCompletionChunk(frame, { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }, usageField));
  };

  const engineStart = performance.now();
  let result: GenerateResult;
  try {
    result = await generateOnLease(ctx, prepared, lease, (tokens) => {
      firstTokenMs ??= performance.now() - engineStart;
      streamedAny = true;
      openStream();
      sendTokens(tokens);
    });
  } catch (error) {
    // Before the first byte the error gets its real status; after, it ends the stream.
    if (!sse.opened) throw error;
    sse.fail(toOpenAiError(error).toBody());
    return;
  }
  const engineMs = performance.now() - engineStart;
  openStream();
  // An engine that does not stream hands everything over at the end.
  if (!streamedAny) sendTokens(result);
  // A reply the client never received is not a turn of its session.
  if (sse.clientGone) return;
  try {
    await ctx.turnLog.append(turnRecord(ctx, { frame, prepared, lease, result, stream: true }, { receivedAt, engineStart, engineMs, firstTokenMs }));
  } catch (error) {
    sse.fail(toOpenAiError(error).toBody());
    return;
  }
  // Tool calls come after the text, in OpenAI's pieces (toolCallDeltas): the engines that make them hand them over whole.
  for (const piece of toolCallDeltas(result.toolCalls ?? [])) {
    sse.send(chatCompletionChunk(frame, { index: 0, delta: { tool_calls: [piece] }, logprobs: null, finish_reason: null }, usageField));
  }
  sse.send(chatCompletionChunk(frame, { index: 0, delta: {}, logprobs: null, finish_reason: finishReasonOf(result, toolChoiceOf(prepared)) }, usageField));
  if (includeUsage) sse.send(chatCompletionChunk(frame, null, usageOf(result.promptTokens, result.completionTokens)));
  sse.done();
}

/** Calls the engine and refuses any reply that is not from the leased version (fail closed). */
async function generateOnLease(
  ctx: ChatCompletionContext,
  prepared: PreparedRequest,
  lease: ServingLease,
  onTokens?: (tokens: GeneratedTokens) => void,
): Promise<GenerateResult> {
  const { generation } = prepared;
  const common = { sampling: prepared.sampling, seed: prepared.seed, logprobsTopK: Math.max(ctx.turnLogTopK, prepared.topLogprobs) };
  let result: GenerateResult;
  try {
    result =
      generation.kind === 'tools'
        ? await generation.engine.generate({ ...common, messages: prepared.messages, toolUse: generation.toolUse }, onTokens)
        : await ctx.engine.generate({ ...common, messages: generation.messages }, onTokens);
  } catch (error) {
    throw engineFailure(error);
  }
  if (result.version !== lease.serving.version) {
    throw serverError(
      `The engine answered with version ${result.version} while ${lease.serving.version} is serving; the reply was discarded.`,
      'version_mismatch',
    );
  }
  return result;
}

/** The tool choice the engine was given (null: it was given no tools). */
function toolChoiceOf(prepared: PreparedRequest): ToolUse['choice'] | null {
  return prepared.generation.kind === 'tools' ? prepared.generation.toolUse.choice : null;
}

function engineFailure(error: unknown): OpenAiError {
  if (error instanceof OpenAiError) return error;
  if (error instanceof EngineError && error.code === 'context_length_exceeded') {
    return badRequest(error.message, 'messages', 'context_length_exceeded');
  }
  // The engine refused the request itself (e.g. a tool schema it cannot compile): the client's to fix.
  if (error instanceof EngineError && error.code === 'bad_request') return badRequest(error.message, null, 'invalid_request');
  const message = error instanceof Error ? error.message : String(error);
  return serverError(`The engine failed to generate a reply: ${message}`);
}

/** What one served completion was: its identity, request, lease and engine result. */
type ServedTurn = { frame: CompletionFrame; prepared: PreparedRequest; lease: ServingLease; result: GenerateResult; stream: boolean };
/** `performance.now()` marks of one request. */
type TurnClock = { receivedAt: number; engineStart: number; engineMs: number; firstTokenMs: number | null };

function turnRecord(
  ctx: ChatCompletionContext,
  { frame, prepared, lease, result, stream }: ServedTurn,
  { receivedAt, engineStart, engineMs, firstTokenMs }: TurnClock,
): TurnRecord {
  return {
    id: frame.id,
    sessionId: prepared.turn.sessionId,
    turnType: prepared.turn.turnType,
    sessionDone: prepared.turn.sessionDone,
    ...(Object.keys(prepared.turn.affinity).length > 0 ? { affinity: prepared.turn.affinity } : {}),
    model: ctx.modelId,
    messages: prepared.messages,
    ...(prepared.generation.kind === 'tools' ? { toolUse: prepared.generation.toolUse } : {}),
    sampling: prepared.sampling,
    seed: prepared.seed,
    stream,
    response: {
      text: result.text,
      tokenIds: result.tokenIds,
      logprobs: result.logprobs,
      topIds: result.topIds,
      topLogprobs: result.topLogprobs,
      forced: result.forced,
      finishReason: result.finishReason,
      ...(result.toolCalls && result.toolCalls.length > 0 ? { toolCalls: result.toolCalls } : {}),
      promptTokens: result.promptTokens,
      completionTokens: result.completionTokens,
    },
    version: lease.serving.version,
    sha256: lease.serving.sha256,
    startedAt: new Date(Date.now() - (performance.now() - receivedAt)).toISOString(),
    timings: {
      queueMs: engineStart - receivedAt,
      engineMs,
      firstTokenMs,
      promptMs: result.timings.promptMs,
      decodeMs: result.timings.decodeMs,
      totalMs: performance.now() - receivedAt,
    },
  };
}
