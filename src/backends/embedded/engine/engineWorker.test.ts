/**
 * The engine worker as the lab runs it: its own process, started by the
 * supervisor, the real model, messages validated both ways.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SupervisedWorker } from '../../../processes/supervisedWorker';
import { workerEntry } from '../../../processes/workerEntry';
import type { GeneratedTokens } from '../../../core/protocols/engineProtocol';
import { engineProtocol } from './embeddedEngineProtocol';

const modelDir = process.env.GATELAB_TEST_MODEL_DIR ?? fileURLToPath(new URL('../../../../assets/models/policy', import.meta.url));

describe.skipIf(!existsSync(join(modelDir, 'manifest.json')))('engine worker process', () => {
  let loads = 0;
  const worker = new SupervisedWorker({
    name: 'engine',
    protocol: engineProtocol,
    entry: () => workerEntry('engine'),
    setup: async (connection) => {
      loads += 1;
      await connection.call('load', { modelDir });
    },
    restartDelayMs: 50,
  });
  afterAll(() => worker.shutdown(3000));

  const messages = [{ role: 'user' as const, content: 'What is 48 divided by 2, then times 3?' }];

  it('loads, generates and streams across the process boundary', async () => {
    const chunks: GeneratedTokens[] = [];
    const reply = await worker.call('generate', { messages, seed: 4, stream: true }, { onProgress: (c) => chunks.push(c) });
    expect(reply.version).toBe('base');
    expect(reply.seed).toBe(4);
    expect(chunks.flatMap((c) => c.tokenIds)).toEqual(reply.tokenIds);
    const again = await worker.call('generate', { messages, seed: 4 });
    expect(again.tokenIds).toEqual(reply.tokenIds);
  });

  it('answers bad requests with a code and keeps serving', async () => {
    await expect(worker.call('generate', { messages: [] } as never)).rejects.toMatchObject({ code: 'bad_request' });
    await expect(worker.call('setAdapter', { version: 'v1-00000000', path: '/nonexistent.safetensors', sha256: '0'.repeat(64) })).rejects.toMatchObject({
      code: 'bad_adapter',
    });
    expect((await worker.call('score', { messages, responseTokenIds: [10, 11] })).logprobs).toHaveLength(2);
  });

  it('fails the request a crash interrupts, restarts and reloads the model', async () => {
    const pid = worker.pid as number;
    const inFlight = worker.call('generate', { messages, sampling: { temperature: 1, topP: 1, topK: 0, maxTokens: 2000 } });
    // Killed in the same tick: the call is already pending, and a short reply
    // cannot finish first (a timer here raced replies that end in < 100 ms).
    process.kill(pid, 'SIGKILL');
    await expect(inFlight).rejects.toMatchObject({ code: 'crashed' });
    const loadsBefore = loads;
    const reply = await worker.call('generate', { messages, seed: 4 });
    expect(worker.pid).not.toBe(pid);
    expect(loads).toBe(loadsBefore + 1);
    expect(reply.completionTokens).toBeGreaterThan(0);
  });
});
