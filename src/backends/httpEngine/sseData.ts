// The `data:` payloads of a server-sent-event stream (an OpenAI-style streamed
// completion), in order, up to `[DONE]`. Events are split on the blank line that
// ends each (`\n\n`, as vLLM writes them), so a payload split across network
// chunks arrives whole.

export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  // A consumer that stops early (a bad event) closes the stream, so the server stops too.
  try {
    yield* events(reader);
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

async function* events(reader: ReadableStreamDefaultReader<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      // An event's data is its `data:` lines joined; comments and other fields are not data.
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice('data:'.length).replace(/^ /, ''))
        .join('\n');
      if (data === '') continue;
      if (data === '[DONE]') return;
      yield data;
    }
  }
}
