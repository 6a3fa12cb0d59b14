// docs/design.md, invariant 5, on the real gateway and engine: 200 chat completions, 16 in
// flight at a time, streaming and not, while the gate promotes two
// candidates and a person rolls back twice. Zero failures; every response
// names the version that produced it; a request runs start to finish on one
// version, and no request starts on a version older than one a request
// before it already started on.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveRun } from '../src/run/liveRun';
import { createRun } from '../src/run/createRun';
import { createRng } from '../src/core/tasks/rng';
import { serializeSafetensors } from '../src/core/weights/safetensors';
import { loraModuleFromPeft } from '../src/core/weights/adapterSpec';
import { peftAdapterConfig } from '../src/core/weights/peftAdapterFormat';
import { WeightStore } from '../src/core/weights/weightStore';
import { writeTestRecipe } from './helpers/testRecipe';

type Outcome = { id: string; version: string; stream: boolean; ok: true } | { ok: false; error: string };

describe('serving swap under load', () => {
  let root: string;
  let run: LiveRun;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-swap-'));
    // Near-base candidates must pass the probes: generous margins, no floors.
    const recipe = await writeTestRecipe(root, {
      sessions: 1,
      probeProblems: 2,
      probeMaxTokens: 32,
      confirm: 'manual',
      floors: { gold_rate: 0, answered_rate: 0 },
      margins: { pass_rate: 1, gold_rate: 1, answered_rate: 1, mean_violations: 100 },
    });
    run = await LiveRun.open(await createRun(recipe, path.join(root, 'run'), {}));
  }, 300_000);

  afterAll(async () => {
    await run?.close();
    await rm(root, { recursive: true, force: true });
  });

  /** A real, well-formed adapter with tiny random values: behaves like the base, passes every check. */
  async function stageNearBase(seed: number, step: number) {
    const rng = createRng(seed);
    const tensors = new Map(
      run.verify.spec.map((s) => [s.name, { shape: s.shape, data: Float32Array.from({ length: s.shape[0] * s.shape[1] }, () => (rng.next() - 0.5) * 1e-3) }]),
    );
    const stored = await new WeightStore(path.join(run.runDir, 'weights')).put({
      blob: serializeSafetensors(tensors, { format: 'pt', lora_alpha: String(run.recipe.trainer.lora.alpha), r: String(run.recipe.trainer.lora.rank) }),
      adapterConfig: peftAdapterConfig(
        { rank: run.recipe.trainer.lora.rank, alpha: run.recipe.trainer.lora.alpha, targets: run.recipe.trainer.lora.target_modules.map(loraModuleFromPeft) },
        run.modelDir,
      ),
      manifest: {
        kind: 'trainer',
        baseModelSha256: run.status().serving.sha256,
        step,
        dataRange: { sessions: [], turns: 0 },
        loss: null,
        lora: { rank: run.recipe.trainer.lora.rank, alpha: run.recipe.trainer.lora.alpha, targets: [...run.recipe.trainer.lora.target_modules] },
      },
    });
    return run.gate.stage({ version: stored.version, sha256: stored.sha256, blob: path.relative(run.runDir, stored.path), source: { kind: 'trainer', step } });
  }

  it('answers 200 requests across two promotions and two rollbacks with zero failures', async () => {
    const one = await stageNearBase(1, 1);
    await run.gate.idle();
    expect(one.state.kind).toBe('awaiting-confirm');

    const endpoint = run.gatewayEndpoint();
    const client = new OpenAI({ baseURL: `${endpoint.url}/v1`, apiKey: endpoint.token, maxRetries: 0, timeout: 120_000 });
    const outcomes: Outcome[] = [];
    let sent = 0;
    let two: Awaited<ReturnType<typeof stageNearBase>> | undefined;
    // The gate's actions, fired as request 40, 80, 120 and 160 is sent, one after
    // another. The 16 requests sent right after an action go out while it is in
    // progress (they must wait, not fail); later ones wait for it to finish, so
    // every version serves a share of the 200.
    const actionsAt = [
      [40, () => run.confirm(one.id)],
      [
        80,
        async () => {
          two = await stageNearBase(2, 2);
          await run.gate.idle();
          return run.confirm(two.id);
        },
      ],
      [120, () => run.rollback(one.version)],
      [160, () => run.rollback('base')],
    ] as const;
    let chain: Promise<unknown> = Promise.resolve();
    const done: Promise<unknown>[] = [];

    const request = async (i: number): Promise<Outcome> => {
      const stream = i % 2 === 1;
      const body = {
        model: endpoint.model,
        messages: [{ role: 'user' as const, content: `My homework is in homework/${i}.txt. What is 6 + 7?` }],
        max_tokens: 12,
        seed: i,
      };
      try {
        if (stream) {
          const { data, response } = await client.chat.completions.create({ ...body, stream: true }).withResponse();
          let id = '';
          for await (const chunk of data) id = chunk.id;
          return { ok: true, id, stream, version: response.headers.get('x-gatelab-version') ?? '' };
        }
        const { data, response } = await client.chat.completions.create(body).withResponse();
        return { ok: true, id: data.id, stream, version: response.headers.get('x-gatelab-version') ?? '' };
      } catch (error) {
        return { ok: false, error: (error as Error).message };
      }
    };

    const worker = async () => {
      while (sent < 200) {
        const i = sent++;
        actionsAt.forEach(([at, action], k) => {
          if (i === at) {
            chain = chain.then(action);
            done[k] = chain;
          }
        });
        for (const [k, [at]] of actionsAt.entries()) if (i >= at + 16) await done[k];
        outcomes[i] = await request(i);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await chain;

    const failures = outcomes.filter((o) => !o.ok);
    expect(failures).toEqual([]);
    expect(outcomes).toHaveLength(200);
    const ok = outcomes.filter((o): o is Extract<Outcome, { ok: true }> => o.ok);
    expect(ok.filter((o) => o.stream)).toHaveLength(100);

    // Every response names its version, and it is the one the engine used for it.
    const turns = new Map(run.servedTurns().map((t) => [t.id, t]));
    for (const o of ok) {
      expect(o.version).toMatch(/^(base|v\d+-[0-9a-f]{8})$/);
      expect(turns.get(o.id)?.version).toBe(o.version);
    }
    // The versions served, in the order the gate and the person set them.
    const epochs = ['base', one.version, two!.version, one.version, 'base'];
    const served = (v: string) => ok.filter((o) => o.version === v).length;
    for (const v of ['base', one.version, two!.version]) expect(served(v), `responses from ${v}`).toBeGreaterThanOrEqual(16);
    // In start order, requests never go back to an earlier epoch.
    const byStart = [...turns.values()].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt) || a.id.localeCompare(b.id));
    let epoch = 0;
    for (const t of byStart) {
      if (t.version === epochs[epoch]) continue;
      const next = epochs.findIndex((v, k) => k > epoch && v === t.version);
      expect(next, `request ${t.id} started on ${t.version} after epoch ${epochs[epoch]}`).toBeGreaterThan(epoch);
      epoch = next;
    }
    expect(run.status().serving.version).toBe('base');
    expect(run.status().candidates.map((c) => c.state)).toEqual(['promoted', 'promoted']);
  }, 600_000);
});
