// OpenClaw, the real agent, calls a tool through the real GateLab gateway,
// and the lab judges the call by the tool's result. A real
// `openclaw agent --local` process with a profile that offers exactly one
// harmless tool (`read`, confined to a temporary workspace holding one known
// file) talks to the gateway (its HTTP server, its per-launch token) through a
// recording proxy that keeps every byte on the wire. The gateway streams the
// engine's call in OpenAI's pieces; OpenClaw assembles it, reads the file and
// sends the result back as a `tool` message answering the call's id; the
// lab's live sessions (the sessionizer, the rule judge, the journal) take the
// file's content as the call's next state and judge the call by it.
//
// The engine behind the gateway is a TEST DOUBLE (ScriptedReadEngine below):
// its first reply is a call to `read` for that file, its second a text reply
// quoting the tool's result. A scripted answer stands in for the model because
// this test is about the wire and the lab's handling of it, and it must not
// flake: SmolLM2-135M-Instruct (the model the CPU recipes serve) has a chat
// template that renders no tools, so under OpenClaw's `tool_choice` (none
// sent: `auto`) it does not call one reliably — only forced calls come out
// reliably on it (docs/internals.md) — and a call it got wrong would fail the
// test for the model's sake. Everything else is the product's own: the
// gateway's request parsing, tool planning and streaming; OpenClaw's client
// and tool; live mode's LiveSessions attached to the gateway's turn log as
// `gatelab live` attaches it, with the recipes' rule judge and a run journal
// (composed here rather than by startLiveMode, whose engine comes from a
// recipe and so cannot be the double).
// Skipped, with the reason, where this machine has no OpenClaw install
// (`npm run setup:openclaw`, which needs Node 24). Every wait is on a
// process's exit or a journal event, never on time.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTurnJudge } from '../src/core/judge/createTurnJudge';
import type { TurnJudgeInput } from '../src/core/judge/turnJudge';
import type { JournalEvent } from '../src/core/journal/journalEvents';
import { RunJournal } from '../src/core/journal/runJournal';
import type {
  ConversationMessage,
  GeneratedTokens,
  GenerateResult,
  ToolCall,
  ToolCallingEngine,
  ToolGenerateRequest,
} from '../src/core/protocols/engineProtocol';
import { LiveSessions } from '../src/run/live/liveSessions';
import { ServingState } from '../src/run/servingState';
import type { TurnRecord } from '../src/run/turnLog';
import { startGateway, type Gateway } from '../src/surfaces/gateway/gatewayServer';
import { EngineDouble, WordTokenizerDouble } from '../src/surfaces/gateway/testing/engineDouble';
import { findOpenClaw, prepareOpenClaw, runOpenClawTurn, type OpenClawTurn } from './helpers/openclaw';
import { journaled } from './helpers/journaled';

const openClaw = findOpenClaw();
if ('missing' in openClaw) console.warn(`openclawTools.integration.test.ts skipped: ${openClaw.missing}`);

const TOKEN = `gatelab-tools-${randomBytes(12).toString('hex')}`;
const MODEL = 'gatelab-policy';
/** The served context, in the double's words; OpenClaw's prompt with one tool is far below it. */
const CONTEXT = 32_768;
const MAX_TOKENS = 256;
/** One OpenClaw turn: its start (~10 s on two shared cores) and two requests to a scripted engine. A limit, never an assertion. */
const TURN_LIMIT_MS = 300_000;

/** What the file says: a line no model would make up, so its arrival can only be the tool's doing. */
const SECRET = `The tide tables say ${randomBytes(6).toString('hex')} at nine.`;
const ASK = 'Read notes.txt in your workspace and tell me what it says.';
/**
 * The call's id. Letters and digits only: OpenClaw rewrites a call id to its
 * strict form (no `_`) before it sends the call and its result back, in both
 * places alike (seen with 2026.9.6); an id it keeps makes "the result answers
 * this call" an exact check.
 */
const CALL_ID = `call${randomBytes(8).toString('hex')}`;

/** The text of a message's content as OpenAI's clients send it: a string, or text parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '')).join('');
  return '';
}

/**
 * The scripted model: asked with the `read` tool offered and no tool result
 * yet, it calls `read` for the file (no text, as a model that only calls);
 * asked with the tool's result last, it answers in text, quoting it.
 */
class ScriptedReadEngine extends EngineDouble {
  readonly requests: ToolGenerateRequest[] = [];
  readonly toolCalling: ToolCallingEngine;

  constructor(
    readonly call: ToolCall,
    readonly answer: (result: string) => string,
  ) {
    super();
    this.toolCalling = {
      generate: (request, onTokens) => Promise.resolve(this.reply(request, onTokens)),
      countPromptTokens: (messages, tools) => Promise.resolve(wordCount(messages) + tools.length),
    };
  }

  private reply(request: ToolGenerateRequest, onTokens?: (tokens: GeneratedTokens) => void): GenerateResult {
    this.requests.push(request);
    const last = request.messages.at(-1);
    const calls = last?.role !== 'tool' && request.toolUse.tools.some((t) => t.name === this.call.name) ? [this.call] : [];
    const text = last?.role === 'tool' ? this.answer(last.content) : calls.length > 0 ? '' : 'ok';
    // The reply's tokens: a word, then the end of the turn (the double's vocabulary).
    const tokens: GeneratedTokens = { tokenIds: [7, 0], text, logprobs: [-0.1, -0.2], topIds: [[7], [0]], topLogprobs: [[-0.1], [-0.2]] };
    onTokens?.(tokens);
    return {
      ...tokens,
      finishReason: 'stop',
      ...(calls.length > 0 ? { toolCalls: calls } : {}),
      promptTokens: wordCount(request.messages) + request.toolUse.tools.length,
      completionTokens: tokens.tokenIds.length,
      version: this.version,
      seed: request.seed,
      timings: { promptMs: 0, decodeMs: 0 },
    };
  }
}

function wordCount(messages: readonly ConversationMessage[]): number {
  return messages.reduce((sum, m) => sum + 2 + m.content.split(/\s+/u).filter(Boolean).length, 0) + 1;
}

/** One request through the proxy: what OpenClaw sent, and the gateway's answer byte for byte. */
type Exchange = { method: string; url: string; body: unknown; status: number; headers: Record<string, unknown>; raw: string };

/**
 * A recording proxy between OpenClaw and the gateway: it forwards each
 * request as it came (the Host header rewritten to the gateway's, which the
 * gateway checks) and each response as it streams, keeping both.
 */
async function startRecordingProxy(target: number): Promise<{ url: string; exchanges: Exchange[]; close(): Promise<void> }> {
  const exchanges: Exchange[] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => {
      const sent = Buffer.concat(parts);
      const upstream = httpRequest(
        { host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${target}` } },
        (answer) => {
          const received: Buffer[] = [];
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.on('data', (chunk: Buffer) => {
            received.push(chunk);
            res.write(chunk);
          });
          answer.on('end', () => {
            const text = sent.toString('utf8');
            let body: unknown;
            try {
              body = sent.length > 0 ? JSON.parse(text) : null;
            } catch {
              body = text;
            }
            exchanges.push({
              method: req.method ?? '',
              url: req.url ?? '',
              body,
              status: answer.statusCode ?? 0,
              headers: answer.headers,
              raw: Buffer.concat(received).toString('utf8'),
            });
            res.end();
          });
        },
      );
      upstream.on('error', (error) => {
        res.writeHead(502);
        res.end(String(error));
      });
      upstream.end(sent);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The `data:` payloads of a server-sent event stream, in order (`[DONE]` kept as the string). */
function sseData(raw: string): unknown[] {
  return raw
    .split('\n\n')
    .filter((event) => event.trim() !== '')
    .map((event) => {
      expect(event.startsWith('data: '), event).toBe(true);
      const data = event.slice('data: '.length);
      return data === '[DONE]' ? data : (JSON.parse(data) as unknown);
    });
}

type Chunk = {
  id: string;
  object: string;
  model: string;
  choices: { index: number; delta: Record<string, unknown>; finish_reason: string | null }[];
  usage?: unknown;
};
type ToolCallPiece = { index: number; id?: string; type?: string; function: { name?: string; arguments: string } };
type RequestBody = {
  model: string;
  stream?: boolean;
  tools?: { type: string; function: { name: string } }[];
  messages: { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }[];
};
type SessionCompleted = Extract<JournalEvent, { type: 'session-completed' }>;
type Transcript = {
  live: { name: string; recognisedBy: string };
  turns: {
    user: string;
    reply: string;
    toolCalls?: ToolCall[];
    nextState: string | null;
    judgment: { score: number } | null;
    training: string | null;
    skipped?: string;
  }[];
};

describe.skipIf('missing' in openClaw)('OpenClaw calls a tool through the gateway (scripted engine): streamed call, tool result, judged by it', () => {
  let root: string;
  let workspace: string;
  let journal: RunJournal;
  let gateway: Gateway;
  let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
  let live: LiveSessions;
  let engine: ScriptedReadEngine;
  const asked: TurnJudgeInput[] = [];
  const session = `gatelab-tools-${randomBytes(4).toString('hex')}`;
  let output: OpenClawTurn;
  let records: readonly TurnRecord[];
  let chats: Exchange[];
  let completed: SessionCompleted;
  let transcript: Transcript;
  let finalReply: string;

  beforeAll(async () => {
    if ('missing' in openClaw) throw new Error(openClaw.missing);
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-openclaw-tools-'));
    workspace = path.join(root, 'workspace');
    await mkdir(workspace, { recursive: true });
    const file = path.join(workspace, 'notes.txt');
    await writeFile(file, `${SECRET}\n`);
    engine = new ScriptedReadEngine({ id: CALL_ID, name: 'read', arguments: JSON.stringify({ path: file }) }, (result) => `The file says: ${result.trim()}`);
    finalReply = `The file says: ${SECRET}`;

    const runDir = path.join(root, 'run');
    await mkdir(runDir);
    journal = await RunJournal.open(runDir);
    await journal.append({ type: 'run-started', runId: 'tools', recipeFile: 'scripted', recipe: {}, baseVersion: { version: 'base', sha256: 'a'.repeat(64) } });
    const tokenizer = new WordTokenizerDouble(CONTEXT);
    gateway = await startGateway({ engine, serving: new ServingState(engine, { version: 'base', sha256: null }), tokenizer, token: TOKEN, modelId: MODEL });
    // Live mode's sessions on the gateway's turn log, with the recipes' rule judge (what it is asked is kept).
    const rule = createTurnJudge({ prm: { kind: 'rule' }, hint: { kind: 'rule', min_chars: 10 } });
    live = new LiveSessions({
      runDir,
      runId: 'tools',
      journal,
      judge: {
        judgeTurn: (input) => {
          asked.push(input);
          return rule.judgeTurn(input);
        },
      },
      sampling: { countPromptTokens: (messages) => tokenizer.countPromptTokens(messages), maxPositions: CONTEXT },
      feed: { add: () => undefined },
      onFatal: (error) => {
        throw error;
      },
    });
    live.attach(gateway.turnLog);
    proxy = await startRecordingProxy(gateway.port);

    const agent = prepareOpenClaw(
      openClaw,
      path.join(root, 'openclaw'),
      { baseUrl: proxy.url, token: TOKEN, model: MODEL },
      {
        contextWindow: CONTEXT,
        maxTokens: MAX_TOKENS,
        // Exactly one tool, read-only, and only inside the workspace; no tool-search tools (tools.toolSearch: false gives direct schemas).
        tools: { allow: ['read'], toolSearch: false, fs: { workspaceOnly: true } },
        workspace,
      },
    );
    output = await runOpenClawTurn(agent, session, ASK, TURN_LIMIT_MS);
    records = [...gateway.turnLog.all()];
    chats = proxy.exchanges.filter((e) => e.url.startsWith('/v1/chat/completions'));
    const toolMessage = (chats[1]?.body as RequestBody | undefined)?.messages.find((m) => m.role === 'tool');
    console.log(
      `openclaw tool turn: ${output.seconds.toFixed(1)} s, ${chats.length} requests; the call streamed in ${(chats[0]?.raw.split('"tool_calls":[').length ?? 1) - 1} chunks; ` +
        `the tool message: ${JSON.stringify(toolMessage)?.slice(0, 300)}`,
    );
    // OpenClaw never says a session is done: journaled here as live mode stopping would.
    await live.closeAll();
    completed = await journaled(journal, (e): e is SessionCompleted => e.type === 'session-completed');
    transcript = JSON.parse(await readFile(path.join(runDir, completed.transcript), 'utf8')) as Transcript;
  }, TURN_LIMIT_MS + 60_000);

  afterAll(async () => {
    await proxy?.close();
    await gateway?.close();
    await journal?.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 60_000);

  it('offers the model exactly the one tool, and streams its call in OpenAI’s pieces', () => {
    expect(chats.map((e) => [e.method, e.status])).toEqual([
      ['POST', 200],
      ['POST', 200],
    ]);
    const first = chats[0]!;
    const body = first.body as RequestBody;
    expect(body.model).toBe(MODEL);
    expect(body.stream).toBe(true);
    expect(body.tools?.map((t) => [t.type, t.function.name])).toEqual([['function', 'read']]);
    expect(String(first.headers['content-type'])).toMatch(/^text\/event-stream/u);

    const events = sseData(first.raw);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1) as Chunk[];
    expect(new Set(chunks.map((c) => c.object))).toEqual(new Set(['chat.completion.chunk']));
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    // The first chunk opens the assistant's message.
    expect(chunks[0]?.choices[0]?.delta).toMatchObject({ role: 'assistant' });
    const withCalls = chunks.filter((c) => c.choices[0]?.delta.tool_calls !== undefined);
    // One piece of one call per chunk, no text beside it, no finish reason yet.
    for (const chunk of withCalls) {
      expect(Object.keys(chunk.choices[0]!.delta)).toEqual(['tool_calls']);
      expect(chunk.choices[0]!.delta.tool_calls as unknown[]).toHaveLength(1);
      expect(chunk.choices[0]!.finish_reason).toBeNull();
    }
    const pieces = withCalls.map((c) => (c.choices[0]!.delta.tool_calls as ToolCallPiece[])[0]!);
    // The head: index, id, type "function", the function's name, no arguments yet.
    expect(pieces[0]).toEqual({ index: 0, id: CALL_ID, type: 'function', function: { name: 'read', arguments: '' } });
    // Then the arguments, split over several chunks: index and arguments only.
    const rest = pieces.slice(1);
    expect(rest.length).toBeGreaterThanOrEqual(3);
    for (const piece of rest) {
      expect(Object.keys(piece).sort()).toEqual(['function', 'index']);
      expect(piece.index).toBe(0);
      expect(Object.keys(piece.function)).toEqual(['arguments']);
    }
    expect(rest.map((p) => p.function.arguments).join('')).toBe(engine.call.arguments);
    // The call's end: an empty delta with finish_reason "tool_calls", after every piece.
    const finished = chunks.findIndex((c) => c.choices[0]?.finish_reason !== null && c.choices[0]?.finish_reason !== undefined);
    expect(chunks[finished]?.choices[0]).toMatchObject({ index: 0, delta: {}, finish_reason: 'tool_calls' });
    expect(finished).toBeGreaterThan(chunks.indexOf(withCalls.at(-1)!));
    expect(chunks.slice(finished + 1).every((c) => c.choices.length === 0)).toBe(true);
  });

  it('gets the tool’s result in OpenClaw’s next request: the file’s content as a tool message answering the call’s id', () => {
    const body = chats[1]!.body as RequestBody;
    const at = body.messages.findIndex((m) => m.role === 'tool');
    expect(at).toBeGreaterThan(0);
    // The assistant's call, as OpenClaw assembled it from the pieces.
    const call = body.messages[at - 1]!;
    expect(call.role).toBe('assistant');
    expect(call.tool_calls).toEqual([{ id: CALL_ID, type: 'function', function: { name: 'read', arguments: engine.call.arguments } }]);
    const result = body.messages[at]!;
    expect(result.tool_call_id).toBe(CALL_ID);
    expect(textOf(result.content)).toContain(SECRET);
    expect(at).toBe(body.messages.length - 1);
    // The engine was given the same: the call, then the result answering its id.
    const request = engine.requests[1]!;
    expect(request.messages.at(-2)).toEqual({ role: 'assistant', content: '', toolCalls: [engine.call] });
    expect(request.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: CALL_ID });
    expect(request.messages.at(-1)?.content).toContain(SECRET);
    // And OpenClaw showed the reply the gateway gave after it.
    expect(output.payloads.map((p) => p.text ?? '').join('\n')).toContain(finalReply);
    expect(output.meta.agentMeta).toMatchObject({ sessionId: session, provider: 'gatelab', model: MODEL });
  });

  it('journals the call as the session’s first turn and judges it by the tool’s result, its next state', () => {
    expect(records.map((r) => r.response.toolCalls ?? [])).toEqual([[engine.call], []]);
    expect(records[0]?.toolUse).toMatchObject({ choice: 'auto', tools: [{ name: 'read' }] });
    expect(completed).toMatchObject({ session: 0, taskId: `live:affinity:${session}`, turns: 2 });
    expect(transcript.live).toEqual({ name: `affinity:${session}`, recognisedBy: 'affinity' });
    const [called, answered] = transcript.turns;
    expect(called).toMatchObject({ reply: '', toolCalls: [engine.call] });
    expect(called?.nextState).toMatch(/^\[tool result\] /u);
    expect(called?.nextState).toContain(SECRET);
    expect(called?.judgment).not.toBeNull();
    // The judge read the call and, as its next state, the tool's result.
    expect(asked).toEqual([{ assistantOutput: `[tool call] read(${engine.call.arguments})`, nextState: called?.nextState }]);
    // The reply after the result: what the request added was the result; nothing came after it.
    expect(answered).toMatchObject({ reply: finalReply, nextState: null, judgment: null });
    expect(answered?.user).toBe(called?.nextState);
    expect(answered?.skipped).toMatch(/no next state/u);
  });
});
