// The trainer feed's batching, window and staleness bound, against a trainer
// worker double whose steps finish when the test says (the real worker is
// exercised by tests/run.integration.test.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrainSample } from '../core/protocols/trainSample';
import type { ReleaseGate } from '../core/gate/releaseGate';
import { RunJournal } from '../core/journal/runJournal';
import { loadRecipe } from '../core/recipe/loadRecipe';
import { WeightStore } from '../core/weights/weightStore';
import { WorkerCallError } from '../processes/workerMessages';
import { embeddedRecipe } from '../../tests/helpers/testRecipe';
import { TrainerFeed, type TrainerWorker } from './trainerFeed';

type PendingStep = { size: number; sessions: string[]; finish: () => void; refuse: () => void };

const BASE = 'b'.repeat(64);

/**
 * A trainer worker whose `step` calls wait for the test to finish or refuse
 * them; a finished step writes a real (tiny) candidate to the store, as a
 * trainer must. `arrived(n)` resolves once the n-th step call has come in, so
 * the test never guesses how long the feed takes to get there.
 */
class SteppingWorker {
  readonly steps: PendingStep[] = [];
  private readonly waiting = new Map<number, () => void>();

  constructor(private readonly storeDir: string) {}

  arrived(n: number): Promise<PendingStep> {
    if (this.steps.length >= n) return Promise.resolve(this.steps[n - 1]!);
    return new Promise((resolve) => this.waiting.set(n, () => resolve(this.steps[n - 1]!)));
  }

  readonly worker = {
    start: async () => {},
    shutdown: async () => {},
    call: (method: string, params: { samples: { sessionId: string }[] }) => {
      if (method !== 'step') return Promise.resolve({});
      return new Promise((resolve, reject) => {
        const n = this.steps.length + 1;
        this.steps.push({
          size: params.samples.length,
          sessions: params.samples.map((sample) => sample.sessionId),
          finish: () => {
            const store = new WeightStore(this.storeDir);
            void store
              .put({
                blob: new Uint8Array([n, 1, 2, 3]),
                adapterConfig: {},
                manifest: {
                  kind: 'trainer',
                  baseModelSha256: BASE,
                  step: n,
                  dataRange: { sessions: [], turns: 0 },
                  loss: 0,
                  lora: { rank: 1, alpha: 1, targets: ['q_proj'] },
                },
              })
              .then((c) =>
                resolve({
                  report: {
                    step: n,
                    samples: params.samples.length,
                    lr: 0.01,
                    loss: 0,
                    pg: 0,
                    opd: 0,
                    kl: 0,
                    klCoef: 0,
                    gradNorm: 0,
                    clipped: false,
                    updateNorm: 0,
                    tokens: 1,
                    seconds: 0,
                  },
                  candidate: { version: c.version, sha256: c.sha256, path: c.path, manifestPath: c.manifestPath },
                  checkpointDir: store.checkpointDir(c.version),
                }),
              );
          },
          refuse: () => reject(new WorkerCallError('bad_request', 'a NaN log-prob')),
        });
        this.waiting.get(n)?.();
      });
    },
  } as unknown as TrainerWorker;
}

let runDir: string;
const turns = (n: number, session = 0) => Array.from({ length: n }, () => ({ sessionId: `run/session-${session}` }) as TrainSample);

async function openFeed(batch: number, window: number, arm: 'trained' | 'control' = 'trained') {
  runDir = await mkdtemp(path.join(tmpdir(), 'gatelab-feed-'));
  const journal = await RunJournal.open(runDir);
  const { recipe } = await loadRecipe(embeddedRecipe);
  await journal.append({ type: 'run-started', runId: 'run', recipeFile: embeddedRecipe, recipe, baseVersion: { version: 'base', sha256: BASE } });
  const trainer = new SteppingWorker(path.join(runDir, 'weights'));
  const staged: string[] = [];
  const gate = { stage: async (c: { version: string }) => staged.push(c.version), candidates: () => [] } as unknown as ReleaseGate;
  const feed = new TrainerFeed({
    runDir,
    journal,
    gate,
    recipe: { ...recipe, arm, trainer: { ...recipe.trainer, batch_turns: batch, window_turns: window } },
    baseSha256: BASE,
    samples: [],
    worker: trainer.worker,
    onFatal: (e) => {
      throw e;
    },
  });
  await feed.start();
  return { feed, trainer, journal, staged };
}

afterEach(async () => {
  await rm(runDir, { recursive: true, force: true });
});

describe('TrainerFeed', () => {
  it('steps once per batch of new turns, each step on the newest turns up to the window', async () => {
    const { feed, trainer, journal, staged } = await openFeed(2, 3);
    feed.add(turns(3));
    (await trainer.arrived(1)).finish();
    feed.add(turns(3));
    (await trainer.arrived(2)).finish();
    (await trainer.arrived(3)).finish();
    await feed.flush();
    expect(trainer.steps.map((s) => s.size)).toEqual([2, 3, 3]);
    const journaled = journal.events.flatMap((e) => (e.type === 'trainer-step' ? [[e.samplesThrough, e.samples]] : []));
    expect(journaled).toEqual([
      [2, 2],
      [4, 3],
      [6, 3],
    ]);
    expect(staged).toHaveLength(3);
  });

  it('in the control arm keeps the turns but never steps: the policy stays frozen', async () => {
    const { feed, trainer, journal, staged } = await openFeed(2, 2, 'control');
    feed.add(turns(2));
    feed.add(turns(5));
    await feed.stepDone();
    await feed.flush();
    expect(feed.pendingTurns).toBe(7);
    expect(trainer.steps).toHaveLength(0);
    expect(journal.events.filter((e) => e.type.startsWith('trainer'))).toHaveLength(0);
    expect(staged).toHaveLength(0);
    // The same feed in the trained arm steps on the same turns (so the assertions above can fail).
    await rm(runDir, { recursive: true, force: true });
    const trained = await openFeed(2, 2, 'trained');
    trained.feed.add(turns(2));
    (await trained.trainer.arrived(1)).finish();
    await trained.feed.flush();
    expect(trained.trainer.steps).toHaveLength(1);
  });

  it('holds the next session until the step in flight is done', async () => {
    const { feed, trainer } = await openFeed(2, 2);
    feed.add(turns(1));
    await feed.stepDone(); // no step yet: sessions go on
    feed.add(turns(1));
    const step = await trainer.arrived(1);
    let done = false;
    const waiting = feed.stepDone().then(() => (done = true));
    // Nothing that stays pending can resolve it: give every queued callback its turn, then look.
    for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    step.finish();
    await waiting;
    expect(done).toBe(true);
    expect(trainer.steps).toHaveLength(1);
  });

  it('never trains a refused batch again in a later window', async () => {
    const { feed, trainer, journal } = await openFeed(2, 4);
    feed.add(turns(2));
    (await trainer.arrived(1)).refuse();
    feed.add(turns(2));
    (await trainer.arrived(2)).finish();
    await feed.flush();
    expect(trainer.steps.map((s) => s.size)).toEqual([2, 2]);
    expect(journal.events.map((e) => e.type).filter((t) => t.startsWith('trainer'))).toEqual(['trainer-step-refused', 'trainer-step']);
  });

  it('never gives the trainer an excluded session’s turns: those not yet trained are dropped, the positions still count them', async () => {
    const { feed, trainer, journal } = await openFeed(2, 3);
    feed.add(turns(1, 0));
    feed.add(turns(1, 1));
    const first = await trainer.arrived(1);
    // Session 2 arrives while the step is in flight, and is excluded before it trains; session 1 after it trained.
    feed.add(turns(2, 2));
    await journal.append({ type: 'session-excluded', session: 1, reason: 'mine', trainedIn: [] });
    await journal.append({ type: 'session-excluded', session: 2, reason: 'mine', trainedIn: [] });
    first.finish();
    await feed.stepDone();
    expect(feed.pendingTurns).toBe(0);
    feed.add(turns(1, 3));
    feed.add(turns(1, 4));
    (await trainer.arrived(2)).finish();
    await feed.flush();
    expect(trainer.steps.map((s) => s.sessions)).toEqual([
      ['run/session-0', 'run/session-1'],
      ['run/session-0', 'run/session-3', 'run/session-4'],
    ]);
    const journaled = journal.events.flatMap((e) => (e.type === 'trainer-step' ? [[e.samplesThrough, e.samples, e.sessionIds]] : []));
    expect(journaled).toEqual([
      [2, 2, ['run/session-0', 'run/session-1']],
      [6, 3, ['run/session-0', 'run/session-3', 'run/session-4']],
    ]);
  });

  it('refuses a step whose candidate is not complete in the weight store', async () => {
    const { feed, journal, staged } = await openFeed(1, 1);
    const liar = {
      start: async () => {},
      shutdown: async () => {},
      call: async () => ({
        report: { step: 1, samples: 1, lr: 0.01, loss: 0, pg: 0, opd: 0, kl: 0, klCoef: 0, gradNorm: 0, clipped: false, updateNorm: 0, tokens: 1, seconds: 0 },
        candidate: {
          version: `v1-${'c'.repeat(8)}`,
          sha256: 'c'.repeat(64),
          path: path.join(runDir, 'weights', 'blobs', `${'c'.repeat(64)}.safetensors`),
          manifestPath: path.join(runDir, 'nowhere'),
        },
        checkpointDir: runDir,
      }),
    } as unknown as TrainerWorker;
    const lying = new TrainerFeed({
      runDir,
      journal,
      gate: { stage: async () => staged.push('x'), candidates: () => [] } as unknown as ReleaseGate,
      recipe: (await loadRecipe(embeddedRecipe)).recipe,
      baseSha256: BASE,
      samples: [],
      worker: liar,
      onFatal: (e) => {
        throw e;
      },
    });
    await feed.close();
    await lying.start();
    lying.add(turns(4));
    await lying.flush();
    const refused = journal.events.filter((e) => e.type === 'trainer-step-refused');
    expect(refused[0]).toMatchObject({ code: 'bad_candidate' });
    expect(staged).toEqual([]);
  });
});
