// The run's roles as Ray actors, against a real local Ray head on the CPU
// (PyPI's ray from `npm run setup:ray`, its own temp folder and free ports,
// stopped after): a short run of the embedded recipe with `runner: ray` and
// the trainer, probe and serving roles on Ray. The lab submits one Ray job,
// whose driver starts each role as an actor with its resources and dials
// back over WebSocket. The trainer's candidates become objects of the job:
// they reach the probe and serving actors through Ray's object store, never
// sent by the lab, and come to the lab's store by content. Verified, gated,
// promoted and served. Mid-way, the trainer's actor is killed through the
// dashboard while a step is in flight: that step is refused cleanly
// (journaled, nothing half-stored), the supervisor starts a new actor, which
// restores the last checkpoint from the object store and steps on from it.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../src/core/journal/journalEvents';
import { readServingPointer } from '../src/core/journal/servingPointer';
import { HOLD_REQUEST_ENV } from '../src/remote/ray/rayJob';
import { isTerminalStatus } from '../src/remote/ray/rayJobsClient';
import { LiveRun } from '../src/run/liveRun';
import { createRun } from '../src/run/createRun';
import type { TurnRecord } from '../src/run/turnLog';
import { sha256Hex, WeightStore } from '../src/core/weights/weightStore';
import { workerRegistry } from '../src/processes/workerRegistry';
import { rayEnvironment, startRayHead, type RayHead } from './helpers/rayHead';
import { repoRoot, writeTestRecipe } from './helpers/testRecipe';
import { trainerBackend } from '../src/backends/trainerBackend';
import { trainerInitParams } from '../src/backends/trainerInitParams';
import { verifyCandidateFile } from '../src/core/gate/verifyCandidate';
import { findModelFolder, pythonEnvironmentReady } from '../src/processes/python/pythonEnvironment';
import { rayPlacement } from '../src/remote/ray/rayPlacement';
import { loadRecipe } from '../src/core/recipe/loadRecipe';
import { adapterSpec, loraModuleFromPeft } from '../src/core/weights/adapterSpec';
import { policyShape, readPolicyConfig } from '../src/core/weights/policyConfig';

const SESSIONS = 8;
/** The trainer's actor is killed when it is asked for its second step. */
const KILL_AT_STEP_REQUEST = 2;

const rayReady = rayEnvironment() !== null || process.env.CI === 'true';
let head: RayHead;

beforeAll(async () => {
  if (rayReady) head = await startRayHead({ numCpus: 2 });
}, 180_000);
afterAll(async () => {
  await head?.stop();
}, 120_000);

describe.skipIf(!rayReady)("the run's roles as Ray actors", () => {
  let root: string;
  let runDir: string;
  let events: JournalEvent[];
  let turns: readonly TurnRecord[];
  const jobs = new Set<string>();
  /** Each role's log, whole (the registry keeps a tail). */
  const logs = new Map<string, string[]>();
  const trainerActors: string[] = [];
  let killed: { actor: string; status: number } | undefined;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-ray-'));
    // Margins wide open and no floors: the point is the path a candidate takes, not the tiny model's quality.
    const file = await writeTestRecipe(root, {
      sessions: SESSIONS,
      maxTurns: 3,
      maxTokens: 48,
      batchTurns: 4,
      windowTurns: 4,
      probeProblems: 2,
      probeMaxTokens: 64,
      confirm: 'auto',
      floors: { gold_rate: 0, answered_rate: 0 },
      margins: { pass_rate: 1, gold_rate: 1, answered_rate: 1, mean_violations: 100 },
    });
    const doc = parseDocument(await readFile(file, 'utf8'));
    const role = { num_cpus: 0.5 };
    doc.setIn(['runner'], { kind: 'ray', address: head.address, python: head.python, roles: { trainer: role, probe: role, serving: role } });
    await writeFile(file, doc.toString());
    runDir = await createRun(file, path.join(root, 'run'), {});

    // The job holds the trainer's second step request, so that the kill below lands mid-step however fast
    // the step would have been; the count is the job's, so the next actor's requests are not held.
    process.env[HOLD_REQUEST_ENV] = `step:${KILL_AT_STEP_REQUEST}`;
    const seen = new Map<string, number>();
    const unsubscribe = workerRegistry.onChange(() => {
      for (const w of workerRegistry.list()) {
        const job = /^ray job (\S+):/.exec(w.command ?? '')?.[1];
        if (job) jobs.add(job);
        // The registry keeps a tail: what it added since the last change, by each line's place in the output.
        const kept = logs.get(w.role) ?? [];
        for (const l of w.log) if (l.seq > (seen.get(w.role) ?? -1)) kept.push(l.line);
        logs.set(w.role, kept);
        seen.set(w.role, Math.max(seen.get(w.role) ?? -1, ...w.log.map((l) => l.seq)));
      }
      const trainerLog = logs.get('trainer') ?? [];
      for (const line of trainerLog.slice(-50)) {
        const actor = /\] actor ([0-9a-f]+) on /.exec(line)?.[1];
        if (actor && !trainerActors.includes(actor)) trainerActors.push(actor);
      }
      if (!killed && trainerLog.slice(-50).some((l) => l.includes('holding it (GATELAB_TEST_HOLD_REQUEST)'))) {
        const actor = trainerActors[0] as string;
        killed = { actor, status: 0 };
        // The dashboard's documented kill: forced, no restart (the supervisor starts the next one).
        void fetch(`${head.address}/api/actors/kill?actor_id=${actor}&force_kill=true&no_restart=true`).then((r) => {
          if (killed) killed.status = r.status;
        });
      }
    });
    const run = await LiveRun.open(runDir, {
      // Before the last session, wait for a decision on the first candidate, so the last session is served after it.
      afterSession: async (session, live) => {
        if (session !== SESSIONS - 2) return;
        const decided = () => live.journal.events.some((e) => e.type === 'candidate-promoted' || e.type === 'candidate-rejected');
        if (decided()) return;
        await new Promise<void>((resolve) => {
          live.journal.onEvent(() => {
            if (decided()) resolve();
          });
        });
      },
    });
    try {
      await run.runSessions();
      turns = [...run.servedTurns()];
      events = [...run.journal.events];
    } finally {
      await run.close();
      unsubscribe();
    }
  }, 900_000);

  afterAll(async () => {
    delete process.env[HOLD_REQUEST_ENV];
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('runs the roles as actors of one Ray job, which ends with the run', { timeout: 120_000 }, async () => {
    expect(jobs.size).toBe(1);
    const [id] = [...jobs] as [string];
    let status = (await head.client.info(id)).status;
    for (let i = 0; i < 240 && !isTerminalStatus(status); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = (await head.client.info(id)).status;
    }
    expect(['STOPPED', 'SUCCEEDED']).toContain(status);
    for (const role of ['trainer', 'probe', 'serving'])
      expect(
        logs.get(role)?.some((l) => /\] actor [0-9a-f]+ on /.test(l)),
        role,
      ).toBe(true);
  });

  it("brings the trainer actor's candidate into the lab's store by content, verified, gated, promoted and served", async () => {
    const steps = events.filter((e): e is Extract<JournalEvent, { type: 'trainer-step' }> => e.type === 'trainer-step');
    expect(steps.length).toBeGreaterThanOrEqual(1);
    const first = steps[0]!;
    // The lab's own copy, re-hashed here.
    expect(sha256Hex(await readFile(path.join(runDir, first.candidate.blob)))).toBe(first.candidate.sha256);
    const staged = events.find((e) => e.type === 'candidate-staged' && e.version === first.candidate.version);
    expect(staged).toBeDefined();
    const id = staged?.type === 'candidate-staged' ? staged.id : '';
    const lifecycle = events.filter((e) => 'id' in e && e.id === id).map((e) => e.type);
    expect(lifecycle).toEqual(expect.arrayContaining(['candidate-verified', 'candidate-probing', 'candidate-awaiting-confirm', 'candidate-promoted']));
    expect(events.filter((e) => e.type === 'probe-round' && e.id === id)).toHaveLength(3);
    const promoted = events.flatMap((e) => (e.type === 'candidate-promoted' ? [e.pointer.version] : []));
    expect(promoted[0]).toBe(first.candidate.version);
    expect(promoted).toContain((await readServingPointer(runDir))?.version);
    // The last session was served by a promoted version.
    expect(turns.some((t) => promoted.includes(t.version))).toBe(true);
  });

  it("places the trainer's candidate on the probe and serving actors from Ray's object store; the lab never sends it", () => {
    const first = events.find((e) => e.type === 'candidate-promoted');
    const sha = first?.type === 'candidate-promoted' ? first.pointer.sha256 : '';
    expect(sha).toMatch(/^[0-9a-f]{64}$/);
    for (const role of ['probe', 'serving']) {
      const log = logs.get(role) ?? [];
      expect(
        log.some((l) => new RegExp(`ray: placed adapter\\.safetensors \\(sha256 ${sha}\\) from object [0-9a-f]+`).test(l)),
        `${role}: ${log.join('\n')}`,
      ).toBe(true);
    }
    for (const [role, log] of logs)
      expect(
        log.filter((l) => l.includes(`sent ${sha}`)),
        role,
      ).toEqual([]);
  });

  it('an actor killed mid-step fails that step cleanly; a new actor restores the checkpoint from the object store and steps on', () => {
    expect(killed?.status).toBe(200);
    expect(trainerActors.length).toBeGreaterThanOrEqual(2);
    const trainerEvents = events.filter((e) => e.type === 'trainer-step' || e.type === 'trainer-step-refused');
    const refused = trainerEvents.filter((e) => e.type === 'trainer-step-refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ code: 'crashed' });
    const at = trainerEvents.indexOf(refused[0]!);
    expect(at).toBe(KILL_AT_STEP_REQUEST - 1);
    const before = trainerEvents[at - 1];
    const after = trainerEvents[at + 1];
    expect(before?.type).toBe('trainer-step');
    expect(after?.type).toBe('trainer-step');
    // Restored from the checkpoint: the step count goes on from the last good step.
    if (before?.type === 'trainer-step' && after?.type === 'trainer-step') {
      expect(after.step).toBe(before.step + 1);
      // The new actor got the version and its checkpoint from the object store: the lab sent none of it.
      const log = logs.get('trainer') ?? [];
      expect(
        log.some((l) => new RegExp(`ray: placed checkpoints/${before.candidate.version}/checkpoint\\.json \\(sha256 [0-9a-f]{64}\\) from object`).test(l)),
      ).toBe(true);
      expect(log.filter((l) => / sent [0-9a-f]{64} /.test(l))).toEqual([]);
    }
    // Nothing lost: every session ran once, in order.
    expect(events.filter((e) => e.type === 'session-completed').map((e) => (e.type === 'session-completed' ? e.session : -1))).toEqual(
      Array.from({ length: SESSIONS }, (_, i) => i),
    );
    expect(events.at(-1)?.type).toBe('run-completed');
  });
});

// The SmolLM2 torch trainer as a Ray actor: the same protocol through
// its job, one real optimizer step on SmolLM2-135M-Instruct on the CPU,
// its candidate and checkpoint downloaded into the lab's store by content and
// accepted by the gate's verify. Needs `npm run setup:python` too.
describe.skipIf(!rayReady || !pythonEnvironmentReady())('the SmolLM2 torch trainer as a Ray job', () => {
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('steps on the node and its candidate comes to the lab by content, verified', { timeout: 600_000 }, async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gatelab-ray-torch-'));
    const { recipe: reef } = await loadRecipe(path.join(repoRoot, 'recipes', 'reef-openclawrl-7gpu.yaml'));
    const runner = {
      kind: 'ray' as const,
      address: head.address,
      python: head.python,
      control: { bind: '127.0.0.1', port: 0 },
      roles: { trainer: { num_cpus: 1 } },
      env: {},
    };
    const recipe = { ...reef, trainer: { ...reef.trainer, launcher: 'local' as const }, devices: { ...reef.devices, trainer: 'cpu' as const }, runner };
    const backend = trainerBackend(recipe);
    const placement = rayPlacement(runner, 'trainer', 'cpu');
    const modelDir = findModelFolder();
    const storeDir = path.join(dir, 'weights');
    const init = trainerInitParams(recipe, { modelDir, baseSha256: 'e'.repeat(64), storeDir, maxTokensPerCall: 4096 });
    const worker = backend.createWorker({ placement, setup: async (connection) => void (await connection.call('init', init, { timeoutMs: 300_000 })) });
    try {
      const responseIds = [504, 3059, 314, 216, 35, 36, 30, 2];
      const sample = {
        sessionId: 'ray/session-1',
        turn: 0,
        messages: [{ role: 'user' as const, content: 'What is 12 times 7?' }],
        responseIds,
        logprobs: responseIds.map(() => -1.5),
        topIds: responseIds.map((id) => [id, 9, 10, 11]),
        topLogprobs: responseIds.map(() => [-1.5, -2, -2.5, -3]),
        reward: 1,
      };
      const { report, candidate, checkpointDir } = await worker.call('step', { samples: [sample], lr: 1e-4 }, { timeoutMs: 300_000 });
      expect(report.step).toBe(1);
      const store = new WeightStore(storeDir);
      // In the lab's store, named by the lab's paths: it came by content.
      expect(candidate.path).toBe(store.blobPath(candidate.sha256));
      expect(checkpointDir).toBe(store.checkpointDir(candidate.version));
      expect(await store.getCheckpoint(candidate.version)).not.toBeNull();
      const stored = await store.get(candidate.version);
      const shape = policyShape(await readPolicyConfig(path.join(modelDir, 'config.json')));
      const lora = { rank: recipe.trainer.lora.rank, alpha: recipe.trainer.lora.alpha, targets: recipe.trainer.lora.target_modules.map(loraModuleFromPeft) };
      const outcome = await verifyCandidateFile(
        stored.path,
        stored.sha256,
        { spec: adapterSpec(shape, lora), lora: { ...lora, targets: recipe.trainer.lora.target_modules }, maxUpdateNorm: recipe.gate.max_update_norm },
        store.adapterConfigPath(candidate.version),
      );
      expect(outcome).toMatchObject({ ok: true });
      // Bad input gets the same error as from a local trainer.
      const bad = await worker.call('step', { samples: [{ ...sample, logprobs: [Number.NaN] }], lr: 1e-4 }).catch((error: unknown) => error);
      expect(bad).toMatchObject({ code: 'bad_input' });
    } finally {
      await worker.shutdown();
    }
  });
});
