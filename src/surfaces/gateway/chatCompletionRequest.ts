/**
 * The body of `POST /v1/chat/completions`, validated with zod.
 *
 * We accept the OpenAI fields this engine can honour, a few harmless ones
 * that clients send by habit (ignored), and reject everything else with a
 * 400 that names the field — silently ignoring e.g. `n: 3` or `tools` would
 * hand the client something it did not ask for.
 */
import { z } from 'zod';
import { badRequest, type OpenAiError } from './openAiError';

const textPart = z.strictObject({ type: z.literal('text'), text: z.string() });
const messageContent = z.union([z.string(), z.array(textPart).min(1)]);

const chatMessage = z.strictObject({
  // `developer` is OpenAI's newer name for `system`; the engine's template only knows system.
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: messageContent,
  name: z.string().optional(),
});

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
    // Accepted and ignored: they change nothing about the completion.
    user: z.string().optional(),
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
    if (body.max_tokens != null && body.max_completion_tokens != null && body.max_tokens !== body.max_completion_tokens) {
      ctx.addIssue({ code: 'custom', path: ['max_completion_tokens'], message: 'disagrees with max_tokens; send one of them' });
    }
  });

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;
export type ChatMessageInput = z.infer<typeof chatMessage>;

/** Parses an already-JSON-decoded body; a failure is a 400 naming the first bad field. */
export function parseChatCompletionRequest(body: unknown): ChatCompletionRequest {
  const parsed = chatCompletionRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : null;
  const detail = issue ? issueText(issue) : 'invalid request body';
  throw invalidField(param, detail);
}

function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unrecognized request argument(s): ${issue.keys.join(', ')}`;
  return issue.message;
}

function invalidField(param: string | null, detail: string): OpenAiError {
  const message = param ? `Invalid value for '${param}': ${detail}.` : `Invalid request body: ${detail}.`;
  return badRequest(message, param, 'invalid_value');
}

export type EngineRole = 'system' | 'user' | 'assistant';
export type EngineChatMessage = { role: EngineRole; content: string };

/** OpenAI messages → the engine's chat template roles, text parts joined. */
export function toEngineMessages(messages: readonly ChatMessageInput[]): EngineChatMessage[] {
  return messages.map((message) => ({
    role: message.role === 'developer' ? 'system' : message.role,
    content: typeof message.content === 'string' ? message.content : message.content.map((part) => part.text).join(''),
  }));
}
