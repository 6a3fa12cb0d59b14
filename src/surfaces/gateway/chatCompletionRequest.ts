/**
 * The body of `POST /v1/chat/completions`, validated with zod.
 *
 * We accept what a current OpenAI client sends (an agent such as OpenClaw:
 * tools, tool_choice, content as text parts, assistant tool calls and tool
 * results, max_completion_tokens, stream_options), a few harmless fields that
 * clients send by habit (ignored), and refuse everything else with a 400 that
 * names the field — silently ignoring e.g. `n: 3` or `stop` would hand the
 * client something it did not ask for. Combinations OpenAI refuses are refused
 * with OpenAI's words.
 */
import { z } from 'zod';
import { toolDefinitionSchema, type ConversationMessage, type ToolChoice, type ToolDefinition } from '../../core/protocols/engineProtocol';
import { badRequest, type OpenAiError } from './openAiError';
import { functionParametersIssue } from './toolSchema';

const textPart = z.strictObject({
  type: z.literal('text', { error: "only 'text' content parts are supported (this model reads text)" }),
  text: z.string(),
});
const textContent = z.union([z.string(), z.array(textPart).min(1)], {
  error: "must be a string or a non-empty array of text parts ({type: 'text', text}); this model reads text only",
});
/** An assistant's earlier turn may hold a refusal part; it is text the model wrote. */
const assistantPart = z.union([textPart, z.strictObject({ type: z.literal('refusal'), refusal: z.string() })]);

const toolCallInput = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string().min(1), arguments: z.string() }),
});

const systemMessage = z.strictObject({ role: z.literal('system'), content: textContent, name: z.string().optional() });
// `developer` is OpenAI's newer name for `system`; the engine's template only knows system.
const developerMessage = z.strictObject({ role: z.literal('developer'), content: textContent, name: z.string().optional() });
const userMessage = z.strictObject({ role: z.literal('user'), content: textContent, name: z.string().optional() });
const assistantMessage = z
  .strictObject({
    role: z.literal('assistant'),
    content: z.union([z.string(), z.array(assistantPart)]).nullish(),
    name: z.string().optional(),
    refusal: z.string().nullish(),
    tool_calls: z.array(toolCallInput).optional(),
  })
  .refine((m) => m.content != null || (m.tool_calls?.length ?? 0) > 0, {
    path: ['content'],
    message: 'is required unless tool_calls is specified',
  });
const toolMessage = z.strictObject({ role: z.literal('tool'), content: textContent, tool_call_id: z.string().min(1) });

const chatMessage = z.discriminatedUnion('role', [systemMessage, developerMessage, userMessage, assistantMessage, toolMessage], {
  error: 'role must be one of system, developer, user, assistant, tool',
});

const functionTool = z.strictObject({
  type: z.literal('function', { error: "only 'function' tools are supported" }),
  function: toolDefinitionSchema,
});

const toolChoice = z.union(
  [z.enum(['none', 'auto', 'required']), z.strictObject({ type: z.literal('function'), function: z.strictObject({ name: z.string().min(1) }) })],
  { error: `must be "none", "auto", "required" or {"type": "function", "function": {"name": ...}}` },
);

const finiteNumber = z.number().refine(Number.isFinite, 'must be a finite number');

export const chatCompletionRequestSchema = z
  .strictObject({
    model: z.string().min(1),
    messages: z.array(chatMessage).min(1),
    stream: z.boolean().nullish(),
    stream_options: z.strictObject({ include_usage: z.boolean().optional() }).nullish(),
    temperature: finiteNumber.min(0).max(2).nullish(),
    top_p: finiteNumber.gt(0).max(1).nullish(),
    /** Extension (vLLM/SGLang spelling): sample from the k most likely tokens; 0 or -1 = off. */
    top_k: z.int().min(-1).max(1_000_000).nullish(),
    max_tokens: z.int().min(1).nullish(),
    max_completion_tokens: z.int().min(1).nullish(),
    seed: z.int().nullish(),
    logprobs: z.boolean().nullish(),
    top_logprobs: z.int().min(0).max(20).nullish(),
    n: z.literal(1).nullish(),
    // OpenAI allows 128 functions per request.
    tools: z.array(functionTool).min(1).max(128).nullish(),
    tool_choice: toolChoice.nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    // Accepted and ignored: they identify the caller or its cache, and change nothing about the completion.
    user: z.string().optional(),
    safety_identifier: z.string().nullish(),
    prompt_cache_key: z.string().nullish(),
    metadata: z.record(z.string(), z.string()).nullish(),
    store: z.boolean().nullish(),
    // Penalties are accepted only at their neutral value; the engine has none.
    presence_penalty: z.literal(0).nullish(),
    frequency_penalty: z.literal(0).nullish(),
  })
  .superRefine((body, ctx) => {
    if (body.stream_options && !body.stream) {
      ctx.addIssue({ code: 'custom', path: ['stream_options'], message: 'is only allowed when stream is true' });
    }
    if (body.top_logprobs != null && !body.logprobs) {
      ctx.addIssue({ code: 'custom', path: ['top_logprobs'], message: 'requires logprobs to be true' });
    }
    checkTools(body, ctx);
    checkToolMessages(body.messages, ctx);
  });

type RequestBody = z.infer<typeof chatCompletionRequestSchema>;

/** OpenAI's rules on tools: unique names, valid parameter schemas, a tool_choice that names one of them. */
function checkTools(body: Pick<RequestBody, 'tools' | 'tool_choice' | 'parallel_tool_calls'>, ctx: z.RefinementCtx): void {
  const tools = body.tools ?? [];
  const seen = new Set<string>();
  tools.forEach((tool, i) => {
    const { name, parameters } = tool.function;
    if (seen.has(name)) ctx.addIssue({ code: 'custom', path: ['tools', i, 'function', 'name'], message: `duplicates the function name '${name}'` });
    seen.add(name);
    const issue = parameters ? functionParametersIssue(parameters) : null;
    if (issue) ctx.addIssue({ code: 'custom', path: ['tools', i, 'function', 'parameters'], message: `invalid schema for function '${name}': ${issue}` });
  });
  if (tools.length === 0) {
    if (body.tool_choice != null) ctx.addIssue({ code: 'custom', path: ['tool_choice'], message: "'tool_choice' is only allowed when 'tools' are specified" });
    if (body.parallel_tool_calls != null)
      ctx.addIssue({ code: 'custom', path: ['parallel_tool_calls'], message: "'parallel_tool_calls' is only allowed when 'tools' are specified" });
    return;
  }
  const choice = body.tool_choice;
  if (typeof choice === 'object' && choice !== null && !seen.has(choice.function.name)) {
    ctx.addIssue({
      code: 'custom',
      path: ['tool_choice', 'function', 'name'],
      message: `names the function '${choice.function.name}', which is not among 'tools'`,
    });
  }
}

/** A tool result answers an earlier call, and every call is answered before the conversation goes on (OpenAI's rule). */
function checkToolMessages(messages: RequestBody['messages'], ctx: z.RefinementCtx): void {
  let open = new Map<string, number>();
  messages.forEach((message, i) => {
    if (message.role === 'tool') {
      if (!open.delete(message.tool_call_id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['messages', i, 'tool_call_id'],
          message: `messages with role 'tool' must be a response to a preceding message with 'tool_calls' (no open call has the id '${message.tool_call_id}')`,
        });
      }
      return;
    }
    if (open.size > 0) unanswered(open, ctx);
    open = new Map((message.role === 'assistant' ? (message.tool_calls ?? []) : []).map((call) => [call.id, i]));
  });
  if (open.size > 0) unanswered(open, ctx);
}

function unanswered(open: Map<string, number>, ctx: z.RefinementCtx): void {
  const [first] = open.values();
  ctx.addIssue({
    code: 'custom',
    path: ['messages', first ?? 0],
    message: `an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'; these did not have one: ${[...open.keys()].join(', ')}`,
  });
}

export type ChatCompletionRequest = RequestBody;
export type ChatMessageInput = RequestBody['messages'][number];

/** Parses an already-JSON-decoded body; a failure is a 400 naming the first bad field. */
export function parseChatCompletionRequest(body: unknown): ChatCompletionRequest {
  const parsed = chatCompletionRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : null;
    const detail = issue ? issueText(issue) : 'invalid request body';
    throw invalidField(param, detail);
  }
  if (parsed.data.max_tokens != null && parsed.data.max_completion_tokens != null) {
    // OpenAI's words and code: the two are one limit under two names.
    throw badRequest("Setting 'max_tokens' and 'max_completion_tokens' at the same time is not supported.", 'max_tokens', 'invalid_parameter_combination');
  }
  return parsed.data;
}

function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unrecognized request argument(s): ${issue.keys.join(', ')}`;
  return issue.message;
}

function invalidField(param: string | null, detail: string): OpenAiError {
  const message = param ? `Invalid value for '${param}': ${detail}.` : `Invalid request body: ${detail}.`;
  return badRequest(message, param, 'invalid_value');
}

export type EngineChatMessage = ConversationMessage;

const textOf = (content: string | ReadonlyArray<{ type: 'text'; text: string } | { type: 'refusal'; refusal: string }>): string =>
  typeof content === 'string' ? content : content.map((part) => (part.type === 'text' ? part.text : part.refusal)).join('');

/** OpenAI messages → the engine's roles (developer is system), text parts joined, tool calls in the engine protocol's shape. */
export function toEngineMessages(messages: readonly ChatMessageInput[]): EngineChatMessage[] {
  return messages.map((message): EngineChatMessage => {
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: textOf(message.content) };
      case 'user':
        return { role: 'user', content: textOf(message.content) };
      case 'assistant': {
        const content = message.content == null ? '' : textOf(message.content);
        const calls = message.tool_calls ?? [];
        if (calls.length === 0) return { role: 'assistant', content };
        return { role: 'assistant', content, toolCalls: calls.map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })) };
      }
      case 'tool':
        return { role: 'tool', content: textOf(message.content), toolCallId: message.tool_call_id };
      default: {
        const unreachable: never = message;
        throw new Error(`unknown role in ${JSON.stringify(unreachable)}`);
      }
    }
  });
}

/** True when the conversation holds tool calls or tool results (only a tool-calling engine can render them). */
export function usesToolMessages(messages: readonly EngineChatMessage[]): boolean {
  return messages.some((m) => m.role === 'tool' || 'toolCalls' in m);
}

/** The request's tools in the engine protocol's shape; null when it offers none. */
export function requestedTools(request: ChatCompletionRequest): { tools: ToolDefinition[]; choice: ToolChoice } | null {
  const tools = (request.tools ?? []).map((tool) => tool.function);
  if (tools.length === 0) return null;
  const choice = request.tool_choice;
  // OpenAI's default with tools is `auto`.
  return { tools, choice: choice == null ? 'auto' : typeof choice === 'string' ? choice : { name: choice.function.name } };
}
