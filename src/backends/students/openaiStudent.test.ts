// The OpenAI-compatible student against a local fake server (a real HTTP
// server on 127.0.0.1, answering what each test scripts): what it sends
// through the official client, how it reads the reply, and how it fails.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BackendUnavailableError } from '../backendUnavailable';
import { studentBackend } from '../studentBackend';
import { StudentUnavailableError } from '../../core/protocols/studentProtocol';
import { parseTaskSet } from '../../core/tasks/task';
import { openAiStudents, studentSystemPrompt, withoutReasoning } from './openaiStudent';

const task = parseTaskSet(JSON.parse(readFileSync(new URL('../../../assets/homework/homework.json', import.meta.url), 'utf8')), 'homework.json').tasks[0]!;

type Seen = { headers: IncomingMessage['headers']; body: Record<string, unknown> };
let server: Server;
let baseUrl: string;
const seen: Seen[] = [];
/** What the next requests get: a reply text, or an HTTP status to fail with. */
let script: Array<{ text: string } | { status: number }> = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    request.on('end', () => {
      seen.push({ headers: request.headers, body: JSON.parse(raw) as Record<string, unknown> });
      const next = script.shift() ?? { status: 500 };
      if ('status' in next) {
        response
          .writeHead(next.status, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'scripted failure', type: 'server_error' } }));
        return;
      }
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 0,
          model: 'student-model',
          choices: [{ index: 0, message: { role: 'assistant', content: next.text }, finish_reason: 'stop' }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
  script = [];
});

const config = () => ({ baseUrl, model: 'student-model', apiKey: 'student-key', persona: 'A tired student.', temperature: 0.7, maxTokens: 128, maxRetries: 0 });
const styled = '**Answer:** 602';

describe('the OpenAI-compatible student', () => {
  it('opens with the task’s own homework request', async () => {
    expect(await openAiStudents(config()).forSession(task, 1).firstMessage()).toBe(task.firstMessage);
  });

  it('asks with the persona and the reaction contract, the conversation turned around, and reads the reaction', async () => {
    script = [{ text: 'This looks too AI-written. Drop the bold and write it like a student would.' }];
    const student = openAiStudents(config()).forSession(task, 5);
    const conversation = [
      { role: 'user' as const, content: task.firstMessage },
      { role: 'assistant' as const, content: styled },
    ];
    const reaction = await student.react(styled, conversation);
    expect(reaction).toMatchObject({ message: 'This looks too AI-written. Drop the bold and write it like a student would.', done: false });
    const { headers, body } = seen[0]!;
    expect(headers.authorization).toBe('Bearer student-key');
    expect(body).toMatchObject({ model: 'student-model', temperature: 0.7, max_tokens: 128 });
    expect(typeof body.seed).toBe('number');
    const messages = body.messages as Array<{ role: string; content: string }>;
    expect(messages[0]?.role).toBe('system');
    expect(messages[0]?.content).toBe(studentSystemPrompt('A tired student.', task));
    expect(messages[0]?.content).toContain(`The correct answer is ${task.answer}`);
    expect(messages[0]?.content).toContain('HOMEWORK_DONE');
    // The student wrote the first message (its own: assistant); the agent's reply is what it reads (user).
    expect(messages.slice(1)).toEqual([
      { role: 'assistant', content: task.firstMessage },
      { role: 'user', content: styled },
    ]);
  });

  it('ends the session on HOMEWORK_DONE, and leaves a thinking model’s reasoning out', async () => {
    script = [{ text: '<think>They saved it, so I am done.</think>\nHOMEWORK_DONE' }];
    const conversation = [
      { role: 'user' as const, content: task.firstMessage },
      { role: 'assistant' as const, content: 'Done, the answers are in the file.' },
    ];
    expect(await openAiStudents(config()).forSession(task, 5).react('Done, the answers are in the file.', conversation)).toMatchObject({
      message: 'HOMEWORK_DONE',
      done: true,
    });
    expect(withoutReasoning('<think>a\nb</think>  Hello')).toBe('Hello');
  });

  it('fails clearly when the endpoint fails or says nothing: the session cannot go on', async () => {
    const conversation = [
      { role: 'user' as const, content: task.firstMessage },
      { role: 'assistant' as const, content: styled },
    ];
    script = [{ status: 500 }];
    await expect(openAiStudents(config()).forSession(task, 1).react(styled, conversation)).rejects.toThrow(StudentUnavailableError);
    script = [{ text: '   ' }];
    await expect(openAiStudents(config()).forSession(task, 1).react(styled, conversation)).rejects.toThrow(/gave no usable reaction: the student said nothing/);
    await expect(openAiStudents(config()).forSession(task, 1).react('another reply', conversation)).rejects.toThrow(/must end with the reply/);
  });

  it('takes its key from the environment variable the recipe names, and refuses to start without it', async () => {
    const recipeStudent = {
      kind: 'openai' as const,
      endpoint: { base_url: baseUrl, model: 'student-model', api_key_env: 'GATELAB_TEST_STUDENT_KEY' },
      persona: 'A student.',
      temperature: 0.7,
      max_tokens: 64,
    };
    expect(() => studentBackend(recipeStudent, { env: {} })).toThrow(BackendUnavailableError);
    expect(() => studentBackend(recipeStudent, { env: {} })).toThrow(/GATELAB_TEST_STUDENT_KEY, which is not set/);
    script = [{ text: 'Great, that looks right.' }];
    const student = studentBackend(recipeStudent, { env: { GATELAB_TEST_STUDENT_KEY: 'from-env' } }).forSession(task, 2);
    await student.react('x', [
      { role: 'user', content: task.firstMessage },
      { role: 'assistant', content: 'x' },
    ]);
    expect(seen[0]?.headers.authorization).toBe('Bearer from-env');
  });
});
