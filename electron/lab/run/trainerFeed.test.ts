// The trainer feed's batching, window and staleness bound, against a trainer
// worker double whose steps finish when the test says (the real worker is
// exercised by tests/run.integration.test.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrainSample } from '../../workers/embedded/trainer/trainSample';
import type { ReleaseGate } from '../gate/releaseGate';
import { RunJournal } from '../journal/runJournal';
import { loadRecipe } from '../recipe/loadRecipe';
import { WorkerCallError } from '../workers/workerMessages';
import { embeddedRecipe } from '../../../tests/helpers/testRecipe';
import { TrainerFeed, type TrainerWorker } from './trainerFeed';

type PendingStep = { size: number; finish: () => void; refuse: () => void };

/** A trainer worker whose `step` calls wait for the test to finish or refuse them. */
class SteppingWorker {
  readonly steps: PendingStep[] = [];

  readonly worker = {
    start: async () => {},
    shutdown: async () => {},
    call: (method: string, params: { samples: unknown[] }) => {
      if (method !== 'step') return Promise.resolve({});
      return new Promise((resolve, reject) => {
        const n = this.steps.length + 1;
        const sha256 = n.toString(16).padStart(64, '0');
        this.steps.push({
          size: params.samples.length,
          finish: () =>
            resolve({
              report: { step: n, lr: 0.01, loss: 0, pg: 0, opd: 0, kl: 0, klCoef: 0, gradNorm: 0, updateNorm: 0, tokens: 1, seconds: 0 },
              candidate: { version: `v${n}-${sha256.slice(0, 8)}`, sha256, path: path.join(runDir, 'weights', sha256) },
            }),
          refuse: () => reject(new WorkerCallError('bad_request', 'a NaN log-prob')),
        });
      });
    },
  } as unknown as TrainerWorker;
}

let runDir: string;
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const turns = (n: number) => Array.from({ length: n }, () => ({}) as TrainSample);

async function openFeed(batch: number, window: number) {
  runDir = await mkdtemp(path.join(tmpdir(), 'gatelab-feed-'));
  const journal = await RunJournal.open(runDir);
  const { recipe } = await loadRecipe(embeddedRecipe);
  const trainer = new SteppingWorker();
  const staged: string[] = [];
  const gate = { stage: async (c: { version: string }) => staged.push(c.version), candidates: () => [] } as unknown as ReleaseGate;
  const feed = new TrainerFeed({
    runDir,
    journal,
    gate,
    recipe: { ...recipe, trainer: { ...recipe.trainer, batch_turns: batch, window_turns: window } },
    modelDir: runDir,
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
    await settle();
    expect(trainer.steps.map((s) => s.size)).toEqual([2]);
    trainer.steps[0]!.finish();
    await settle();
    feed.add(turns(3));
    await settle();
    trainer.steps[1]!.finish();
    await settle();
    trainer.steps[2]!.finish();
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

  it('holds the next session until the step in flight is done', async () => {
    const { feed, trainer } = await openFeed(2, 2);
    feed.add(turns(1));
    await feed.stepDone(); // no step yet: sessions go on
    feed.add(turns(1));
    await settle();
    let done = false;
    void feed.stepDone().then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    trainer.steps[0]!.finish();
    await settle();
    expect(done).toBe(true);
    expect(trainer.steps).toHaveLength(1);
  });

  it('never trains a refused batch again in a later window', async () => {
    const { feed, trainer, journal } = await openFeed(2, 4);
    feed.add(turns(2));
    await settle();
    trainer.steps[0]!.refuse();
    await settle();
    feed.add(turns(2));
    await settle();
    trainer.steps[1]!.finish();
    await feed.flush();
    expect(trainer.steps.map((s) => s.size)).toEqual([2, 2]);
    expect(journal.events.map((e) => e.type).filter((t) => t.startsWith('trainer'))).toEqual(['trainer-step-refused', 'trainer-step']);
  });
});
