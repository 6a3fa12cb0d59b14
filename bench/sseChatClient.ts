/**
 * A lean streaming client for bench:engine: node:http and a line splitter.
 * The bench measures the server, and the `openai` SDK's web-streams
 * decoding costs ~0.3–0.9 ms of CPU per token here — as much as a tenth of a
 * forward pass — which would be charged to the gateway, since the client
 * runs in the same process. The tests use the official client.
 */
import { Agent, request } from 'node:http';

export type StreamChunk = {
  choices: Array<{ delta: { content?: string }; finish_reason: string | null }>;
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  error?: { message: string };
};

const agent = new Agent({ keepAlive: true });

/** POSTs a streaming chat completion and calls `onChunk` for every SSE data event until `[DONE]`. */
export function streamChatCompletion(baseUrl: string, token: string, body: object, onChunk: (chunk: StreamChunk) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${baseUrl}/v1/chat/completions`,
      { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        if (res.statusCode !== 200) {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => reject(new Error(`HTTP ${res.statusCode}: ${text}`)));
          return;
        }
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (text: string) => {
          buffer += text;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (!event.startsWith('data: ')) continue;
            const data = event.slice('data: '.length);
            if (data === '[DONE]') continue;
            const chunk = JSON.parse(data) as StreamChunk;
            if (chunk.error) {
              reject(new Error(chunk.error.message));
              return;
            }
            onChunk(chunk);
          }
        });
        res.on('end', () => resolve());
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
