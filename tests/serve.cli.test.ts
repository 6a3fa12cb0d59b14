/**
 * `gatelab serve` as a person runs it: a real process from bin/gatelab.js,
 * the real engine worker, the official `openai` client, and a signal to stop.
 */
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adapterSpec } from '../src/core/weights/adapterSpec';
import { LORA_MODULES, policyShape, readPolicyConfig } from '../src/core/weights/policyConfig';
import { serializeSafetensors, type Float32Tensor } from '../src/core/weights/safetensors';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'gatelab.js');
// GATELAB_TEST_MODEL_DIR points the test at another build of the policy (as the engine's tests allow).
const MODEL_DIR = process.env.GATELAB_TEST_MODEL_DIR ?? join(ROOT, 'assets', 'models', 'policy');
const ask = [
  { role: 'user' as const, content: 'My homework is in homework/1.txt. Here it is: "Tom has 3 bags of 5 apples. How many apples?" Can you help me solve it?' },
];

type Served = { child: ChildProcessWithoutNullStreams; output: () => string; exited: Promise<number | null> };

function startServe(args: string[], env: Record<string, string> = {}): Served {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!('GATELAB_TOKEN' in env)) delete childEnv.GATELAB_TOKEN;
  const child = spawn(process.execPath, [BIN, 'serve', '--model-dir', MODEL_DIR, ...args], { cwd: ROOT, env: childEnv });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(served: Served, pattern: RegExp, timeoutMs = 90_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = served.output().match(pattern);
    if (match) return match;
    if (served.child.exitCode !== null) throw new Error(`gatelab serve exited ${served.child.exitCode}:\n${served.output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}:\n${served.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The engine worker processes a process started (not tsx's esbuild service). */
const engineWorkerPids = (pid: number): number[] => {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)])
      .toString()
      .split('\n')
      .filter((line) => /engineWorker|workers\/engine\.js/.test(line))
      .map((line) => Number(line.trim().split(/\s+/)[0]));
  } catch {
    return [];
  }
};
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function writeRunDir(): Promise<{ dir: string; version: string; sha256: string; blob: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gatelab-serve-'));
  const shape = policyShape(await readPolicyConfig(join(MODEL_DIR, 'config.json')));
  const tensors = new Map<string, Float32Tensor>();
  let i = 0;
  for (const spec of adapterSpec(shape, { rank: 1, alpha: 2, targets: LORA_MODULES })) {
    tensors.set(spec.name, { shape: [...spec.shape], data: Float32Array.from({ length: spec.shape[0] * spec.shape[1] }, () => Math.sin(i++) * 0.05) });
  }
  const bytes = serializeSafetensors(tensors, { format: 'pt', lora_alpha: '2', r: '1' });
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const version = `v4-${sha256.slice(0, 8)}`;
  mkdirSync(join(dir, 'weights', 'blobs'), { recursive: true });
  const blob = join(dir, 'weights', 'blobs', `${sha256}.safetensors`);
  writeFileSync(blob, bytes);
  writeFileSync(join(dir, 'serving.json'), JSON.stringify({ version, sha256 }) + '\n');
  return { dir, version, sha256, blob };
}

describe('gatelab serve', () => {
  it('serves the base model with a printed per-launch token and stops cleanly on SIGTERM, engine included', async () => {
    const served = startServe([]);
    try {
      const [, url] = await waitFor(served, /serving base at (http:\/\/127\.0\.0\.1:\d+)\/v1/);
      const [, token] = await waitFor(served, /API key \(per launch\): (\S+)/);
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: token, maxRetries: 0 });
      const reply = await client.chat.completions.create({ model: 'gatelab-policy', messages: ask, max_tokens: 16 });
      expect(reply.system_fingerprint).toBe('base');
      const wrong = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'wrong-token-0123456789', maxRetries: 0 });
      await expect(wrong.models.list()).rejects.toMatchObject({ status: 401 });

      const workers = engineWorkerPids(served.child.pid as number);
      expect(workers).toHaveLength(1);
      served.child.kill('SIGTERM');
      expect(await served.exited).toBe(0);
      expect(served.output()).toMatch(/SIGTERM: stopping/);
      expect(served.output()).toMatch(/stopped/);
      for (const pid of workers) expect(alive(pid)).toBe(false);
    } finally {
      served.child.kill('SIGKILL');
    }
  }, 120_000);

  it('serves a run’s serving version on --port with GATELAB_TOKEN, and stops on SIGINT', async () => {
    const run = await writeRunDir();
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const token = 'token-from-env-0123456789';
    const served = startServe(['--run', run.dir, '--port', String(port)], { GATELAB_TOKEN: token });
    try {
      await waitFor(served, new RegExp(`serving ${run.version} at http://127\\.0\\.0\\.1:${port}/v1`));
      expect(served.output()).not.toContain(token);
      const client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: token, maxRetries: 0 });
      const { data, response } = await client.chat.completions.create({ model: 'gatelab-policy', messages: ask, max_tokens: 16 }).withResponse();
      expect(data.system_fingerprint).toBe(run.version);
      expect(response.headers.get('x-gatelab-version')).toBe(run.version);
      served.child.kill('SIGINT');
      expect(await served.exited).toBe(0);
    } finally {
      served.child.kill('SIGKILL');
    }
  }, 120_000);

  it('refuses to start when the run’s blob does not match its pointer', async () => {
    const run = await writeRunDir();
    writeFileSync(run.blob, 'corrupted bytes');
    const served = startServe(['--run', run.dir]);
    expect(await served.exited).toBe(1);
    expect(served.output()).toMatch(new RegExp(`refusing to serve: adapter ${run.version}: .* hashes to`));
  }, 60_000);

  it('refuses a short GATELAB_TOKEN', async () => {
    const served = startServe([], { GATELAB_TOKEN: 'short' });
    expect(await served.exited).toBe(1);
    expect(served.output()).toMatch(/at least 16 characters/);
  }, 60_000);
});
