import { describe, expect, it } from 'vitest';
import { sseData } from './sseData';

/** A body that arrives in the given pieces (as a network would cut it). */
function body(pieces: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const p of pieces) controller.enqueue(p);
      controller.close();
    },
  });
}

async function all(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  for await (const data of sseData(stream)) out.push(data);
  return out;
}

describe('sseData', () => {
  it('yields each event whole however the network cut it, and ends at [DONE]', async () => {
    const text = 'data: {"a":1}\n\n: a comment\n\ndata: {"b":"é"}\n\ndata: [DONE]\n\ndata: {"after":true}\n\n';
    const bytes = new TextEncoder().encode(text);
    // Every cut point, a multi-byte character's middle among them.
    for (let cut = 1; cut < bytes.length; cut += 1) {
      expect(await all(body([bytes.slice(0, cut), bytes.slice(cut)]))).toEqual(['{"a":1}', '{"b":"é"}']);
    }
  });

  it('cancels the stream when its consumer stops early', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('data: {}\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const _ of sseData(stream)) break;
    expect(cancelled).toBe(true);
  });
});
