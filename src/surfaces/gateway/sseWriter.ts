/**
 * Server-sent events as OpenAI streams them: `data: <json>\n\n` per chunk,
 * `data: [DONE]\n\n` at the end, an `{error}` object if the stream fails
 * after it started (the `openai` client raises it as an APIError).
 */
import type { ServerResponse } from 'node:http';

export class SseWriter {
  #opened = false;

  constructor(
    private readonly response: ServerResponse,
    private readonly headers: Record<string, string>,
  ) {}

  get opened(): boolean {
    return this.#opened;
  }

  /** True once the client went away; writing more is pointless. */
  get clientGone(): boolean {
    return this.response.destroyed || this.response.writableEnded;
  }

  open(): void {
    if (this.#opened) return;
    this.#opened = true;
    this.response.writeHead(200, {
      ...this.headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    this.response.flushHeaders();
  }

  send(data: unknown): void {
    this.open();
    if (this.clientGone) return;
    this.response.write(`data: ${JSON.stringify(data)}\n\n`);
  }

  done(): void {
    this.open();
    if (this.clientGone) return;
    this.response.end('data: [DONE]\n\n');
  }

  /** Ends a started stream with an error event instead of `[DONE]`. */
  fail(error: unknown): void {
    this.send(error);
    if (!this.clientGone) this.response.end();
  }
}
