// The session loop's client of the gateway: a real HTTP request per turn,
// carrying OpenClaw's session headers (X-Session-Id, X-Turn-Type: main,
// X-Session-Done), exactly as an OpenClaw agent would send it.
import { z } from 'zod';
import type { Sampling } from '../core/recipe/recipeSchema';

export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

export type GatewayEndpoint = { url: string; token: string; model: string };

const completionSchema = z.object({
  id: z.string(),
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }), finish_reason: z.string() })).length(1),
});

export type GatewayReply = { id: string; text: string; finishReason: string; version: string };

export async function chatThroughGateway(
  endpoint: GatewayEndpoint,
  request: { sessionId: string; sessionDone: boolean; messages: ChatMessage[]; sampling: Sampling; seed: number },
): Promise<GatewayReply> {
  const response = await fetch(`${endpoint.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${endpoint.token}`,
      'X-Session-Id': request.sessionId,
      'X-Turn-Type': 'main',
      'X-Session-Done': String(request.sessionDone),
    },
    body: JSON.stringify({
      model: endpoint.model,
      messages: request.messages,
      temperature: request.sampling.temperature,
      top_p: request.sampling.top_p,
      top_k: request.sampling.top_k,
      max_tokens: request.sampling.max_tokens,
      seed: request.seed,
    }),
  });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const message = (body as { error?: { message?: string } } | null)?.error?.message ?? response.statusText;
    throw new Error(`gateway answered ${response.status}: ${message}`);
  }
  const version = response.headers.get('x-gatelab-version');
  if (!version) throw new Error('the gateway reply does not name the version that produced it');
  const completion = completionSchema.parse(body);
  const choice = completion.choices[0]!;
  return { id: completion.id, text: choice.message.content ?? '', finishReason: choice.finish_reason, version };
}
