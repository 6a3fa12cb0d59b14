/**
 * A remote trainer's weights cross by content: a stand-in trainer process
 * (testing/fake_trainer.py, the protocol's store layout with made-up bytes)
 * behind the real connector writes into its own scratch store; the lab gets
 * the candidate and checkpoint downloaded, hashed on arrival, checked against
 * the manifests and imported into its store; a restore uploads them to a
 * fresh connector (a new scratch folder), and a trainer that lies about its
 * bytes makes the step fail with nothing stored.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { initParamsSchema, trainerProtocol } from '../core/protocols/trainerProtocol';
import { sha256Hex, WeightStore } from '../core/weights/weightStore';
import { SupervisedWorker } from '../processes/supervisedWorker';
import { WorkerCallError } from '../processes/workerMessages';
import { WorkerRegistry } from '../processes/workerRegistry';
import { controlHub, type ControlEndpointOptions } from './controlHub';
import { connectorPython } from './testing/connectorPython';
import { localConnectorLauncher } from './testing/localConnectorLauncher';
import { trainerWeightSync } from './trainerWeightSync';

const python = connectorPython() ?? 'python3';
if (connectorPython() === null) console.warn("trainerWeightSync.test.ts skipped: no Python with the connector's packages (npm run setup:ray)");
const fakeTrainer = fileURLToPath(new URL('./testing/fake_trainer.py', import.meta.url));
const control: ControlEndpointOptions = { bind: '127.0.0.1', port: 0 };
const registry = new WorkerRegistry();
const workers: Array<SupervisedWorker<typeof trainerProtocol>> = [];
const dirs: string[] = [];
const base = 'ab'.repeat(32);

function remoteTrainer(storeDir: string, lie = '', setupRestore?: string) {
  const worker = new SupervisedWorker({
    name: 'trainer',
    protocol: trainerProtocol,
    entry: () => ({ kind: 'process', command: python, args: [fakeTrainer], env: { FAKE_TRAINER_LIE: lie } }),
    launch: localConnectorLauncher({ python, control, hooks: trainerWeightSync }),
    startTimeoutMs: 60_000,
    maxRestarts: 0,
    registry,
    setup: async (connection) => {
      const init = initParamsSchema.parse({
        modelDir: '/nonexistent/on/this/node',
        baseSha256: base,
        storeDir,
        lora: { rank: 2, alpha: 4, targets: ['q_proj'] },
        optimizer: { lr: 1e-3 },
        seed: 1,
      });
      await connection.call('init', init);
      if (setupRestore) await connection.call('restore', { version: setupRestore });
    },
  });
  workers.push(worker);
  return worker;
}

const sample = {
  sessionId: 's0',
  turn: 0,
  messages: [{ role: 'user', content: 'hi' }],
  responseIds: [1],
  logprobs: [-1],
  topIds: [[1]],
  topLogprobs: [[-1]],
  reward: 1,
};

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.shutdown(3000)));
});
afterAll(async () => {
  await controlHub(control).close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function labStoreDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gatelab-sync-'));
  dirs.push(dir);
  return path.join(dir, 'weights');
}

describe.skipIf(connectorPython() === null)("a remote trainer's weights", () => {
  it('come into the lab store by content, and go back for a restore', { timeout: 120_000 }, async () => {
    const storeDir = await labStoreDir();
    const first = remoteTrainer(storeDir);
    const { candidate, checkpointDir } = await first.call('step', { samples: [sample], lr: 1e-3 });
    // The answer names the lab's own files, not the remote scratch folder's.
    const store = new WeightStore(storeDir);
    expect(candidate.path).toBe(store.blobPath(candidate.sha256));
    expect(checkpointDir).toBe(store.checkpointDir(candidate.version));
    const stored = await store.get(candidate.version);
    expect(sha256Hex(await readFile(stored.path))).toBe(candidate.sha256);
    expect(stored.manifest.baseModelSha256).toBe(base);
    expect((await store.getCheckpoint(candidate.version))?.manifest.format).toBe('fake/1');
    await first.shutdown(3000);

    // A new launch (a new scratch folder, nothing in it): restore gets the version and checkpoint uploaded.
    const second = remoteTrainer(storeDir, '', candidate.version);
    const next = await second.call('step', { samples: [sample], lr: 1e-3 });
    expect(next.report.step).toBe(2);
    expect(await store.list()).toEqual([candidate.version, next.candidate.version]);
  });

  for (const lie of ['blob', 'checkpoint'] as const) {
    it(`refuse a step whose ${lie} is not what the trainer says, storing nothing`, { timeout: 120_000 }, async () => {
      const storeDir = await labStoreDir();
      const worker = remoteTrainer(storeDir, lie);
      const error = await worker.call('step', { samples: [sample], lr: 1e-3 }).then(
        () => new Error('accepted'),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(WorkerCallError);
      expect((error as WorkerCallError).code).toBe('transfer_failed');
      expect((error as Error).message).toMatch(lie === 'blob' ? /the blob that arrived is not/ : /state\.bin does not match/);
      expect(await new WeightStore(storeDir).list()).toEqual([]);
    });
  }
});
