import { readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { prepareAwaitingConfirmRun, writeDerivedRecipe } from '../../lab/testing/preparedRun';
import { CURVE_COLUMNS } from '../../core/metrics/curve';
import { GATE_COLUMNS } from '../../core/metrics/gateCsv';
import type { LabApi } from '../api';
import type { LabEventName, LabMethodName } from '../channels';
import { LAB_METHOD_CHANNELS } from '../channelLists';
import { LabError } from '../errors';
import type { LabEnvelope } from '../errors';
import type { RunPatch } from '../labRuns';
import type { WorkersView } from '../workers';

export const REFERENCE_ID = 'reef-2026-09-14-qwen3.5-9b-gated';
export const REPO_ASSETS_DIR = fileURLToPath(new URL('../../../assets', import.meta.url));
const REFERENCE_DIR = join(REPO_ASSETS_DIR, 'reference', '2026-09-14-qwen3.5-9b-gated');
const DEFAULT_RECIPE = fileURLToPath(new URL('../../../recipes/embedded-gsm8k-style.yaml', import.meta.url));
export const PREPARED_RUN_ID = 'prepared-run';

/**
 * A run folder with a candidate awaiting confirmation, made once per test
 * file by the real gate and probe engine (testing/preparedRun.ts: a no-op
 * adapter through three real probe rounds; two probe problems and no floors,
 * so the weak embedded policy cannot fail a candidate identical to it).
 * Each transport gets its own copy in its own runs folder.
 */
let preparedTemplate: Promise<string> | undefined;
function preparedRun(): Promise<string> {
  preparedTemplate ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gatelab-contract-prepared-'));
    const recipe = await writeDerivedRecipe(DEFAULT_RECIPE, join(dir, 'recipes'), {
      name: 'embedded-prepared',
      probeProblems: 2,
      floors: { gold_rate: 0, answered_rate: 0 },
    });
    const prepared = await prepareAwaitingConfirmRun(recipe, join(dir, 'run'), { sessions: 2 }, 2);
    for (const c of prepared.candidates) {
      if (c.state !== 'awaiting-confirm') throw new Error(`the prepared run's candidate ${c.id} is ${c.state}: ${c.reason}`);
    }
    return prepared.runDir;
  })();
  return preparedTemplate;
}

/** One transport under test: the typed API over it, plus raw access for calls the types forbid. */
export interface ContractHarness {
  readonly api: LabApi;
  rawInvoke(channel: string, params: unknown): Promise<LabEnvelope>;
  eventsReady(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The LabApi contract, written once and run against every transport (IPC
 * through the harness, HTTP+WebSocket against the real server): the same
 * calls must give the same results and the same errors.
 */
export function defineContractSuite(transportName: string, start: (options: { runsDir: string }) => Promise<ContractHarness>): void {
  describe(`LabApi contract over ${transportName}`, () => {
    let harness: ContractHarness;
    let runsDir: string;
    beforeAll(async () => {
      runsDir = await mkdtemp(join(tmpdir(), 'gatelab-contract-runs-'));
      harness = await start({ runsDir });
      await harness.eventsReady();
    });
    afterAll(async () => {
      await harness.close();
    });

    const curveText = readFileSync(join(REFERENCE_DIR, 'curve.csv'), 'utf8');
    const workerEvents: WorkersView[] = [];
    const gateText = readFileSync(join(REFERENCE_DIR, 'gate.csv'), 'utf8');

    test('app.info names the app', async () => {
      const info = await harness.api.app.info();
      expect(info.name).toBe('GateLab');
      expect(info.versions.node).toMatch(/^\d+\./);
    });

    test('every method channel answers', async () => {
      for (const channel of LAB_METHOD_CHANNELS) {
        const envelope = await harness.rawInvoke(channel, {});
        // Some methods need params, some a run; what matters is that each has a handler behind it.
        expect(envelope.ok || envelope.error.code === 'invalid-params' || envelope.error.code === 'conflict', channel).toBe(true);
      }
    });

    test('runs.listReferences lists the Reef run and the published result (session 14, 36 sessions)', async () => {
      const { published, runs } = await harness.api.runs.listReferences();
      expect(published.adaptationSession).toBe(14);
      expect(published.curveSessions).toBe(36);
      expect(runs.map((run) => run.id)).toContain(REFERENCE_ID);
      expect(runs.find((run) => run.id === REFERENCE_ID)?.sessions).toBe(72);
    });

    test('runs.openReference loads all 72 sessions and 67 gate steps, values as in the file', async () => {
      const run = await harness.api.runs.openReference({ id: REFERENCE_ID });
      expect(run.summary).toMatchObject({ sessionCount: 72, accepted: 2, adaptationSession: null, gateSteps: 67 });
      expect(run.columns).toEqual([...CURVE_COLUMNS]);
      expect(run.gate?.columns).toEqual([...GATE_COLUMNS]);
      expect(run.sessions[5]).toEqual({
        session: 5,
        accept: 0,
        bold: 1,
        bullets: 1,
        numbered: 1,
        list: 1,
        no_shown_work: 1,
        no_gold_answer: 0,
        style_clean: 0,
        turns: 3,
        first_reply_chars: 514,
        accept_cum: 0,
        accept_rate_10: 0,
        bold_rate_10: 0.8333333333333334,
        list_rate_10: 0.6666666666666666,
        style_clean_rate_10: 0.16666666666666666,
      });
      expect(run.sessions.filter((s) => s.accept === 1).map((s) => s.session)).toEqual([61, 66]);
      expect(run.gate?.steps[7]).toEqual({ step: 8, outcome: 'reject', clean_rate: 0.125, best: 0.375, answered_rate: 1, gold_rate: 0.125 });
      expect(run.warnings).toEqual([]);
    });

    test('runs.openReference for an overlay loads the same run without announcing it as opened', async () => {
      const loaded: unknown[] = [];
      const off = harness.api.on('runs.loaded', (summary) => loaded.push(summary));
      const overlay = await harness.api.runs.openReference({ id: REFERENCE_ID, purpose: 'overlay' });
      expect(overlay.summary.sessionCount).toBe(72);
      await harness.api.runs.openReference({ id: REFERENCE_ID });
      await expect.poll(() => loaded.length).toBe(1);
      off();
    });

    test('runs.openReference of an unknown id is not-found', async () => {
      await expect(harness.api.runs.openReference({ id: 'no-such-run' })).rejects.toMatchObject({
        name: 'LabError',
        code: 'not-found',
      });
    });

    test('runs.openFiles reads curve.csv and gate.csv from text, in either order', async () => {
      const run = await harness.api.runs.openFiles({
        files: [
          { name: 'gate.csv', text: gateText },
          { name: 'curve.csv', text: curveText },
        ],
      });
      const reference = await harness.api.runs.openReference({ id: REFERENCE_ID });
      expect(run.sessions).toEqual(reference.sessions);
      expect(run.gate?.steps).toEqual(reference.gate?.steps);
      expect(run.summary.sourceKind).toBe('files');
      expect(run.files.map((f) => [f.name, f.role])).toEqual([
        ['curve.csv', 'curve'],
        ['gate.csv', 'gate'],
      ]);
    });

    test("runs.openFiles to compare: titled by the run's name the renderer gives, and not announced as opened", async () => {
      const loaded: unknown[] = [];
      const off = harness.api.on('runs.loaded', (summary) => loaded.push(summary));
      const run = await harness.api.runs.openFiles({ files: [{ name: 'curve.csv', text: curveText }], purpose: 'compare', title: 'reef-gated' });
      expect(run.summary.title).toBe('reef-gated');
      const viewed = await harness.api.runs.openFiles({ files: [{ name: 'curve.csv', text: curveText }] });
      expect(viewed.summary.title).toBe('curve.csv');
      await expect.poll(() => loaded.length).toBe(1);
      off();
      expect(await harness.rawInvoke('runs.openFiles', { files: [{ name: 'curve.csv', text: curveText }], title: '' })).toMatchObject({
        ok: false,
        error: { code: 'invalid-params' },
      });
    });

    test('a malformed curve.csv is refused naming its line and column', async () => {
      const lines = curveText.split('\n');
      lines[4] = lines[4]!.replace(/^3,0,/, '3,x,');
      const error = await harness.api.runs.openFiles({ files: [{ name: 'broken.csv', text: lines.join('\n') }] }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(LabError);
      expect(error).toMatchObject({
        code: 'invalid-csv',
        details: { file: 'broken.csv', line: 5, column: 2, columnName: 'accept' },
      });
      expect((error as LabError).message).toContain('line 5');
    });

    test('a malformed gate.csv refuses the whole run', async () => {
      const gate = gateText.replace('8,reject,', '8,maybe,');
      await expect(
        harness.api.runs.openFiles({
          files: [
            { name: 'curve.csv', text: curveText },
            { name: 'gate.csv', text: gate },
          ],
        }),
      ).rejects.toMatchObject({ code: 'invalid-csv', details: { file: 'gate.csv', line: 9, column: 2, columnName: 'outcome' } });
    });

    test('a gate.csv alone, or a file that is neither, is refused', async () => {
      await expect(harness.api.runs.openFiles({ files: [{ name: 'gate.csv', text: gateText }] })).rejects.toMatchObject({
        code: 'invalid-csv',
      });
      await expect(harness.api.runs.openFiles({ files: [{ name: 'notes.csv', text: 'a,b\n1,2\n' }] })).rejects.toMatchObject({
        code: 'invalid-csv',
        details: { file: 'notes.csv', line: 1 },
      });
    });

    test('params that fail the schema are invalid-params and never reach the core', async () => {
      const cases: [LabMethodName, unknown][] = [
        ['runs.openReference', { id: 42 }],
        ['runs.openReference', { id: REFERENCE_ID, extra: true }],
        ['runs.openReference', { id: REFERENCE_ID, purpose: 'delete' }],
        ['runs.openFiles', { files: [] }],
        ['runs.openFiles', { files: [{ name: 'a.csv' }] }],
        ['app.info', null],
      ];
      for (const [channel, params] of cases) {
        const envelope = await harness.rawInvoke(channel, params);
        expect(envelope, `${channel} ${JSON.stringify(params)}`).toMatchObject({ ok: false, error: { code: 'invalid-params' } });
      }
    });

    test('an unknown channel is not-found', async () => {
      const envelope = await harness.rawInvoke('runs.deleteEverything', {});
      expect(envelope).toMatchObject({ ok: false, error: { code: 'not-found' } });
    });

    test('events: runs.loaded and lab.log arrive after a load, and unsubscribe stops them', async () => {
      const seen: [LabEventName, unknown][] = [];
      const offLoaded = harness.api.on('runs.loaded', (summary) => seen.push(['runs.loaded', summary]));
      const offLog = harness.api.on('lab.log', (entry) => seen.push(['lab.log', entry]));
      await harness.api.runs.openReference({ id: REFERENCE_ID });
      await expect.poll(() => seen.length).toBeGreaterThanOrEqual(2);
      expect(seen.find(([name]) => name === 'runs.loaded')?.[1]).toMatchObject({ id: REFERENCE_ID, sessionCount: 72 });
      expect(seen.find(([name]) => name === 'lab.log')?.[1]).toMatchObject({ level: 'info' });
      offLoaded();
      offLog();
      const count = seen.length;
      await harness.api.runs.openReference({ id: REFERENCE_ID });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen.length).toBe(count);
    });

    // ── labRuns: the desktop's run domain ─────────────────────────────────

    test('labRuns.recipes: the embedded default first and runnable; the Reef 7-GPU recipe listed with why it cannot run here', async () => {
      const { recipes, runsDir: dir } = await harness.api.labRuns.recipes();
      expect(dir).toBe(runsDir);
      expect(recipes[0]).toMatchObject({
        id: 'embedded-gsm8k-style.yaml',
        isDefault: true,
        runnable: true,
        sessions: 72,
        confirm: 'manual',
        rounds: 3,
        reasons: [],
        servedContext: null, // the embedded policy serves its model's own
      });
      const reef = recipes.find((r) => r.id === 'reef-openclawrl-7gpu.yaml');
      expect(reef).toMatchObject({ runnable: false, isDefault: false });
      // An engine's served context can be changed for live mode: SmolLM2's recipe serves 2,048 tokens of its 8,192.
      expect(recipes.find((r) => r.id === 'smollm2-135m-cpu.yaml')?.servedContext).toEqual({ tokens: 2048 });
      expect(reef?.reasons.join('\n')).toMatch(/GPU/);
    });

    test('labRuns: nothing is open yet, so the current run is null and every request to a run is a conflict', async () => {
      expect(await harness.api.labRuns.current()).toEqual({ run: null });
      const refused = [
        harness.api.labRuns.confirm({ candidate: 'c1' }),
        harness.api.labRuns.reject({ candidate: 'c1' }),
        harness.api.labRuns.inject({ kind: 'nan-inf' }),
        harness.api.labRuns.rollback({ version: 'base' }),
        harness.api.labRuns.probeReplies({ candidate: 'c1', round: 1 }),
        harness.api.labRuns.stop(),
        harness.api.labRuns.resume(),
        harness.api.labLive.endpoint(),
        harness.api.labLive.transcript({ session: 0 }),
        harness.api.labLive.exclude({ session: 0 }),
      ];
      for (const call of refused) await expect(call).rejects.toMatchObject({ name: 'LabError', code: 'conflict' });
    });

    test('labLive.start refuses a path, a recipe that cannot run here (with the reasons), and a missing recipe, starting nothing', async () => {
      for (const recipe of ['../recipes/embedded-gsm8k-style.yaml', '/etc/passwd']) {
        expect(await harness.rawInvoke('labLive.start', { recipe }), recipe).toMatchObject({ ok: false, error: { code: 'invalid-params' } });
      }
      expect(await harness.rawInvoke('labLive.start', { recipe: 'embedded-gsm8k-style.yaml', idleSeconds: 1 })).toMatchObject({
        ok: false,
        error: { code: 'invalid-params' },
      });
      await expect(harness.api.labLive.start({ recipe: 'reef-openclawrl-7gpu.yaml' })).rejects.toMatchObject({ name: 'LabError', code: 'unavailable' });
      await expect(harness.api.labLive.start({ recipe: 'no-such-recipe.yaml' })).rejects.toMatchObject({ code: 'unavailable' });
      await expect(harness.api.labLive.start({ recipe: 'embedded-gsm8k-style.yaml', maxModelLen: 8192 })).rejects.toMatchObject({
        code: 'unavailable',
        message: expect.stringMatching(/a served context \(--max-model-len\) is for a policy an engine serves/),
      });
      expect(await harness.api.labRuns.current()).toEqual({ run: null });
    });

    test('labRuns.start refuses a path, a recipe that cannot run here (with the reasons), and a missing recipe', async () => {
      for (const recipe of ['../recipes/embedded-gsm8k-style.yaml', '/etc/passwd', 'embedded-gsm8k-style.json']) {
        const envelope = await harness.rawInvoke('labRuns.start', { recipe });
        expect(envelope, recipe).toMatchObject({ ok: false, error: { code: 'invalid-params' } });
      }
      const reef = await harness.api.labRuns.start({ recipe: 'reef-openclawrl-7gpu.yaml' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(reef).toMatchObject({ name: 'LabError', code: 'unavailable' });
      expect((reef as LabError).details).toMatchObject({ reasons: expect.arrayContaining([expect.stringMatching(/GPU/)]) });
      await expect(harness.api.labRuns.start({ recipe: 'no-such-recipe.yaml' })).rejects.toMatchObject({ code: 'unavailable' });
      await expect(harness.rawInvoke('labRuns.start', { recipe: 'embedded-gsm8k-style.yaml', sessions: 0 })).resolves.toMatchObject({
        ok: false,
        error: { code: 'invalid-params' },
      });
      expect(await harness.api.labRuns.current()).toEqual({ run: null });
    });

    test('labRuns.start runs the embedded recipe (its first 2 sessions here): the run streams reset, then patches; it pauses, takes an injection while paused, resumes, completes', async () => {
      const patches: RunPatch[] = [];
      const waiters: { until: (patch: RunPatch) => boolean; resolve: (patch: RunPatch) => void }[] = [];
      /** The first patch (from now on) that satisfies `until`: the run's own events order the test, not a clock. */
      const patchWhere = (until: (patch: RunPatch) => boolean) => new Promise<RunPatch>((resolve) => waiters.push({ until, resolve }));
      const off = harness.api.on('labRuns.changed', (patch) => {
        patches.push(patch);
        for (const w of waiters.filter((x) => x.until(patch))) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(patch);
        }
      });
      const offWorkers = harness.api.on('workers.changed', (view) => workerEvents.push(view));
      const running = patchWhere((p) => p.header.phase === 'running');
      const started = await harness.api.labRuns.start({ recipe: 'embedded-gsm8k-style.yaml', seed: 3, sessions: 2 });
      expect(started.header).toMatchObject({
        phase: 'starting',
        seed: 3,
        confirm: 'manual',
        recipeName: 'embedded-gsm8k-style',
        sessions: { planned: 2, completed: 0 },
      });
      expect(started.header.runDir.startsWith(runsDir)).toBe(true);
      // Only one run is live at a time; a starting run cannot be paused yet.
      await expect(harness.api.labRuns.start({ recipe: 'embedded-gsm8k-style.yaml', sessions: 1 })).rejects.toMatchObject({ code: 'conflict' });
      await running;

      // Pause: the session in progress (if any) finishes, then nothing runs; the gate still takes requests.
      const paused = patchWhere((p) => p.header.phase === 'paused');
      expect((await harness.api.labRuns.pause()).header.phase).toBe('pausing');
      const atPause = (await paused).header;
      expect(atPause.sessions.running).toBeNull();
      expect(atPause.sessions.completed).toBeLessThan(2);
      await expect(harness.api.labRuns.pause()).rejects.toMatchObject({ code: 'conflict' });
      // The injection is staged (its request says as which candidate) and the gate rejects that candidate, in either order.
      const rejectedIds = new Set<string>();
      const rejected = patchWhere((p) => {
        for (const c of p.candidates) if (c.state === 'rejected') rejectedIds.add(c.id);
        const request = p.header.injections.find((i) => i.id === 'i1');
        return request?.state === 'staged' && request.candidate !== null && rejectedIds.has(request.candidate);
      });
      const injected = await harness.api.labRuns.inject({ kind: 'nan-inf' });
      expect(injected.injection).toMatchObject({ id: 'i1', kind: 'nan-inf', state: 'building', servingBefore: { version: 'base' } });
      const decided = await rejected;
      expect(decided.header.phase).toBe('paused');
      expect(decided.header.sessions.completed).toBe(atPause.sessions.completed);

      const completed = patchWhere((p) => p.header.phase === 'completed');
      expect((await harness.api.labRuns.resume()).header.phase).toBe('running');
      await completed;
      const { run } = await harness.api.labRuns.current();
      expect(run?.header.sessions).toMatchObject({ planned: 2, completed: 2 });
      const session = run!.sessions[0]!;
      expect(session.session).toBe(0);
      expect(session.curve.first_reply_chars).toBe([...session.firstReply].length);
      expect(session.curve.accept).toBe(session.verdict.accepted ? 1 : 0);
      expect(session.version).toBe('base');
      expect(patches[0]?.reset).toBe(true);
      expect(patches.filter((p) => p.reset)).toHaveLength(1);
      expect(patches.flatMap((p) => p.sessions.map((x) => x.session))).toContain(0);
      off();
      offWorkers();
    }, 300_000);

    test("workers.list: the run's serving and probe engines and its trainer, live processes on the CPU at the recipe's nice values; workers.changed streams them", async () => {
      // The completed run keeps its gate open, so its processes are still up.
      const { workers, gpuProblem } = await harness.api.workers.list();
      expect(gpuProblem).toBeNull();
      const byRole = new Map(workers.map((w) => [w.role, w]));
      expect([...byRole.keys()].sort()).toEqual(['probe', 'serving', 'trainer']);
      for (const w of workers) {
        expect(w, w.role).toMatchObject({ state: 'running', kind: 'node', gpus: null, restarts: 0, lastExit: null });
        expect(w.pid).toBeGreaterThan(0);
        expect(w.startedAt).not.toBeNull();
      }
      expect(byRole.get('serving')).toMatchObject({ name: 'serving-engine', nice: 10, command: expect.stringMatching(/^node engine(Worker\.ts|\.js)$/) });
      expect(byRole.get('probe')).toMatchObject({ name: 'probe-engine', nice: 0 });
      expect(byRole.get('trainer')).toMatchObject({ name: 'trainer', nice: 0 });
      expect(byRole.get('serving')!.logTail.length).toBeGreaterThanOrEqual(0);
      expect(await harness.rawInvoke('workers.list', { all: true })).toMatchObject({ ok: false, error: { code: 'invalid-params' } });
      // While the run started, the event said so: the engines starting, then running.
      const seen = (role: string, state: string) => workerEvents.some((e) => e.workers.some((w) => w.role === role && w.state === state));
      expect(seen('serving', 'running') && seen('probe', 'running') && seen('trainer', 'running')).toBe(true);
    });

    test("labRuns.transcript: the whole session, every turn with its verdict, reward and hint; the first turn is the session's scored reply", async () => {
      const { run } = await harness.api.labRuns.current();
      const session = run!.sessions[0]!;
      const transcript = await harness.api.labRuns.transcript({ session: 0 });
      expect(transcript).toMatchObject({ session: 0, taskId: session.taskId, question: session.question, gold: session.gold, accepted: session.accepted });
      expect(transcript.turns.length).toBe(session.turns);
      const first = transcript.turns[0]!;
      expect(first).toMatchObject({
        turn: 0,
        reply: session.firstReply,
        version: session.version,
        verdict: session.verdict,
        nextState: session.reaction,
        reward: session.reward,
        hint: session.hint,
      });
      // The rule PRM (docs/internals.md): a complaint is −1, a save request +1; a complaint carries the hint.
      for (const turn of transcript.turns) {
        if (turn.nextState === null) continue;
        expect(turn.reward, turn.nextState).not.toBeNull();
        if (turn.reward === -1) expect(turn.hint?.accepted).toBe(true);
      }
      expect(transcript.turns.map((t) => t.turn)).toEqual(transcript.turns.map((_, i) => i));
      await expect(harness.api.labRuns.transcript({ session: 5 })).rejects.toMatchObject({ code: 'not-found' });
      expect(await harness.rawInvoke('labRuns.transcript', { session: -1 })).toMatchObject({ ok: false, error: { code: 'invalid-params' } });
    });

    test("labRuns.openCurve: a run folder's curve.csv titled by the folder's name, as its file says; no path tricks", async () => {
      const { run } = await harness.api.labRuns.current();
      const runId = run!.header.runDir.split(/[\\/]/).at(-1)!;
      const loaded = await harness.api.labRuns.openCurve({ runId, purpose: 'compare' });
      expect(loaded.summary).toMatchObject({ title: runId, sessionCount: run!.sessions.length, sourceKind: 'files' });
      expect(loaded.sessions).toEqual(run!.sessions.map((s) => s.curve));
      expect(loaded.files.map((f) => f.name)).toEqual(['curve.csv']);
      const byPath = await harness.api.labRuns.openCurve({ path: run!.header.runDir });
      expect(byPath.summary.title).toBe(runId);
      expect(byPath.sessions).toEqual(loaded.sessions);
      for (const where of [{ runId: '../etc' }, { runId: 'a/b' }, { runId: runId, purpose: 'steal' }]) {
        expect(await harness.rawInvoke('labRuns.openCurve', where), JSON.stringify(where)).toMatchObject({ ok: false, error: { code: 'invalid-params' } });
      }
      await expect(harness.api.labRuns.openCurve({ runId: 'no-such-run' })).rejects.toMatchObject({ code: 'not-found' });
      await expect(harness.api.labRuns.openCurve({ path: REPO_ASSETS_DIR })).rejects.toMatchObject({ code: 'not-found' });
    });

    test('labRuns.open: a run id is a folder name, never a path; a folder that is no run is not-found', async () => {
      for (const where of [{ runId: '../etc' }, { runId: '.hidden' }, { runId: 'a/b' }, {}]) {
        expect(await harness.rawInvoke('labRuns.open', where), JSON.stringify(where)).toMatchObject({ ok: false, error: { code: 'invalid-params' } });
      }
      await expect(harness.api.labRuns.open({ runId: 'no-such-run' })).rejects.toMatchObject({ code: 'not-found' });
      await expect(harness.api.labRuns.open({ path: REPO_ASSETS_DIR })).rejects.toMatchObject({ code: 'not-found' });
    });

    test('labRuns.list and open: a run folder with a candidate awaiting confirmation, its rounds and evidence', async () => {
      await cp(await preparedRun(), join(runsDir, PREPARED_RUN_ID), { recursive: true });
      const { runs } = await harness.api.labRuns.list();
      expect(runs).toHaveLength(2);
      expect(runs).toContainEqual(
        expect.objectContaining({
          runId: PREPARED_RUN_ID,
          recipeName: 'embedded-prepared',
          status: 'stopped',
          failure: null,
          awaitingConfirm: ['c1', 'c2'],
          serving: 'base',
          heldBy: null,
        }),
      );
      // The run the test before started here, complete, still held by this lab (its gate stays open).
      expect(runs).toContainEqual(
        expect.objectContaining({
          recipeName: 'embedded-gsm8k-style',
          status: 'complete',
          sessionsCompleted: 2,
          sessionsPlanned: 2,
          completed: true,
          heldBy: process.pid,
        }),
      );
      const view = await harness.api.labRuns.open({ runId: PREPARED_RUN_ID });
      expect(view.header).toMatchObject({
        phase: 'viewing',
        runDir: join(runsDir, PREPARED_RUN_ID),
        serving: { version: 'base' },
        confirm: 'manual',
        rounds: 3,
      });
      expect(view.candidates.map((c) => c.state)).toEqual(['awaiting-confirm', 'awaiting-confirm']);
      const c1 = view.candidates[0]!;
      expect(c1).toMatchObject({
        id: 'c1',
        state: 'awaiting-confirm',
        passedRounds: 3,
        source: { kind: 'file' },
        servingAtStage: { version: 'base' },
        servingAtDecision: null,
      });
      expect(c1.rounds.map((r) => [r.round, r.passed, r.checks.length, r.checks.every((c) => c.ok)])).toEqual([
        [1, true, 4, true],
        [2, true, 4, true],
        [3, true, 4, true],
      ]);
      expect(await harness.api.labRuns.current()).toMatchObject({ run: { header: { runId: view.header.runId } } });
    }, 240_000);

    test('labRuns.probeReplies: candidate and serving on the same problems and seeds, with verdicts', async () => {
      const round = await harness.api.labRuns.probeReplies({ candidate: 'c1', round: 2 });
      expect(round).toMatchObject({ candidate: 'c1', round: 2, servingVersion: 'base' });
      expect(round.pairs).toHaveLength(2);
      for (const pair of round.pairs) {
        // A no-op adapter (B = 0) samples exactly what serving samples on the same seed.
        expect(pair.candidate.text).toBe(pair.serving.text);
        expect(pair.candidate.verdict).toEqual(pair.serving.verdict);
        for (const m of pair.candidate.verdict.markers) expect(m.end).toBeLessThanOrEqual(pair.candidate.text.length);
      }
      await expect(harness.api.labRuns.probeReplies({ candidate: 'c1', round: 7 })).rejects.toMatchObject({ code: 'not-found' });
    });

    test('labRuns.reject: a person rejects a candidate awaiting confirmation, with the reason; serving unchanged', async () => {
      const rejected = await harness.api.labRuns.reject({ candidate: 'c2', reason: 'not this one' });
      expect(rejected.candidate).toMatchObject({ id: 'c2', state: 'rejected', reason: { code: 'person', detail: 'not this one' } });
      expect(rejected.servingAfter).toEqual(rejected.servingBefore);
      expect(rejected.candidate.servingAtDecision).toEqual(rejected.servingBefore);
      expect((await harness.api.labRuns.current()).run?.header.phase).toBe('gate-only');
    }, 120_000);

    test('labRuns.confirm: the gate promotes; patches stream; a decided candidate cannot be decided again; rollback restores', async () => {
      const patches: RunPatch[] = [];
      const off = harness.api.on('labRuns.changed', (patch) => patches.push(patch));
      const confirmed = await harness.api.labRuns.confirm({ candidate: 'c1' });
      expect(confirmed.servingBefore.version).toBe('base');
      expect(confirmed.servingAfter).toEqual({ version: confirmed.candidate.version, sha256: confirmed.candidate.sha256 });
      expect(confirmed.candidate).toMatchObject({ state: 'promoted', confirmedBy: 'person' });
      const pointerFile = join(runsDir, PREPARED_RUN_ID, 'serving.json');
      expect(JSON.parse(await readFile(pointerFile, 'utf8'))).toEqual(confirmed.servingAfter);
      await expect
        .poll(() =>
          patches.some((p) => p.header.serving.version === confirmed.candidate.version && p.candidates.some((c) => c.id === 'c1' && c.state === 'promoted')),
        )
        .toBe(true);
      expect(patches.at(-1)?.header.phase).toBe('gate-only');
      // Each patch follows the one before it: the renderer's gap check holds.
      patches.forEach((p, i) => i > 0 && expect(p.header.update).toBe(patches[i - 1]!.header.update + 1));

      await expect(harness.api.labRuns.confirm({ candidate: 'c1' })).rejects.toMatchObject({ code: 'conflict' });
      await expect(harness.api.labRuns.reject({ candidate: 'c1', reason: 'too late' })).rejects.toMatchObject({ code: 'conflict' });
      await expect(harness.api.labRuns.confirm({ candidate: 'c9' })).rejects.toMatchObject({ code: 'conflict' });
      await expect(harness.api.labRuns.rollback({ version: 'v9-deadbeef' })).rejects.toMatchObject({ code: 'conflict' });

      const rolled = await harness.api.labRuns.rollback({ version: 'base' });
      expect(rolled).toEqual({ servingBefore: confirmed.servingAfter, servingAfter: confirmed.servingBefore });
      expect(JSON.parse(await readFile(pointerFile, 'utf8'))).toEqual(confirmed.servingBefore);
      const { run } = await harness.api.labRuns.current();
      expect(run?.servingHistory.map((h) => [h.kind, h.to.version, h.by])).toEqual([
        ['promoted', confirmed.candidate.version, 'person'],
        ['rolled-back', 'base', 'person'],
      ]);
      off();
    }, 120_000);

    test('labRuns.inject answers at once; a second request queues behind the first; both end rejected, serving unchanged', async () => {
      const both = new Promise<RunPatch>((resolve) => {
        const off = harness.api.on('labRuns.changed', (patch) => {
          if (patch.header.injections.filter((i) => i.state === 'staged').length < 2) return;
          const ids = patch.header.injections.map((i) => i.candidate);
          void harness.api.labRuns.current().then(({ run }) => {
            if (run !== null && ids.every((id) => run.candidates.find((c) => c.id === id)?.state === 'rejected')) {
              off();
              resolve(patch);
            }
          });
        });
      });
      const first = await harness.api.labRuns.inject({ kind: 'nan-inf' });
      const second = await harness.api.labRuns.inject({ kind: 'wrong-shape' });
      expect(first.servingBefore.version).toBe('base');
      expect(first.injection).toMatchObject({ id: 'i1', kind: 'nan-inf', state: 'building', candidate: null });
      // Asked while the first is being built: it waits its turn, visibly.
      expect(second.injection).toMatchObject({ id: 'i2', kind: 'wrong-shape', state: 'queued', queuePosition: 0 });
      const done = await both;
      expect(done.header.injections.map((i) => [i.id, i.state, i.candidate])).toEqual([
        ['i1', 'staged', 'c3'],
        ['i2', 'staged', 'c4'],
      ]);
      const { run } = await harness.api.labRuns.current();
      const [c3, c4] = ['c3', 'c4'].map((id) => run!.candidates.find((c) => c.id === id)!);
      expect(c3!.reason).toMatchObject({ code: 'non-finite' });
      expect(c4!.reason).toMatchObject({ code: 'tensor-spec' });
      expect(c3!.servingAtDecision).toEqual(first.servingBefore);
      expect(run!.header.serving).toEqual(first.servingBefore);
    }, 120_000);

    test('labRuns.stop lets the gate-only run go; the folder stays on screen', async () => {
      const view = await harness.api.labRuns.stop();
      expect(view.header.phase).toBe('viewing');
      expect(view.candidates.map((c) => c.state)).toEqual(['promoted', 'rejected', 'rejected', 'rejected']);
    });

    test('labLive: live mode starts, says where a client connects, journals its conversation, excludes it, stops and continues', async () => {
      const waiters: { until: (patch: RunPatch) => boolean; resolve: (patch: RunPatch) => void }[] = [];
      const patchWhere = (until: (patch: RunPatch) => boolean) => new Promise<RunPatch>((resolve) => waiters.push({ until, resolve }));
      const off = harness.api.on('labRuns.changed', (patch) => {
        for (const w of waiters.filter((x) => x.until(patch))) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(patch);
        }
      });
      const serving = patchWhere((p) => p.header.live?.serving !== null && p.header.phase === 'running');
      const started = await harness.api.labLive.start({ recipe: 'embedded-gsm8k-style.yaml' });
      expect(started.header).toMatchObject({ phase: 'starting', live: { serving: null, open: [] }, sessions: { running: null } });
      await expect(harness.api.labRuns.start({ recipe: 'embedded-gsm8k-style.yaml', sessions: 1 })).rejects.toMatchObject({ code: 'conflict' });
      const { header } = await serving;
      const endpoint = await harness.api.labLive.endpoint();
      expect(endpoint).toMatchObject({ baseUrl: header.live!.serving!.baseUrl, model: header.live!.serving!.model });
      // The token is read on request only: no run update carries it.
      expect(JSON.stringify(header)).not.toContain(endpoint.token);
      await expect(harness.api.labRuns.pause()).rejects.toMatchObject({ code: 'conflict' });

      const journaled = patchWhere((p) => p.sessions.some((x) => x.live !== null));
      const client = new OpenAI({ baseURL: endpoint.baseUrl, apiKey: endpoint.token, maxRetries: 0 });
      await client.chat.completions.create(
        { model: endpoint.model, messages: [{ role: 'user', content: 'What is 2 + 3?' }], max_completion_tokens: 8 },
        { headers: { 'X-Session-Id': 'contract', 'X-Turn-Type': 'main', 'X-Session-Done': 'true' } },
      );
      const session = (await journaled).sessions.find((x) => x.live !== null)!;
      expect(session).toMatchObject({ taskId: 'live:header:contract', turns: 1, live: { name: 'header:contract', recognisedBy: 'header' } });
      const transcript = await harness.api.labLive.transcript({ session: session.session });
      expect(transcript.turns).toHaveLength(1);
      expect(transcript.turns[0]!.skipped).toMatch(/no next state/);

      const excluded = patchWhere((p) => p.sessions.some((x) => x.session === session.session && x.training.excluded !== null));
      expect(await harness.api.labLive.exclude({ session: session.session, reason: 'mine' })).toEqual({ session: session.session, trainedIn: [] });
      expect((await excluded).sessions.find((x) => x.session === session.session)?.training.excluded).toMatchObject({ reason: 'mine', trainedIn: [] });
      await expect(harness.api.labLive.excludeOpen({ name: 'header:nobody' })).rejects.toMatchObject({ code: 'not-found' });

      const stopped = await harness.api.labRuns.stop();
      expect(stopped.header).toMatchObject({ phase: 'stopped', live: { serving: null, open: [] } });
      await expect(harness.api.labLive.endpoint()).rejects.toMatchObject({ code: 'conflict' });
      const again = patchWhere((p) => p.header.live?.serving !== null && p.header.phase === 'running');
      expect((await harness.api.labRuns.resume()).header.phase).toBe('starting');
      expect((await again).sessions.find((x) => x.session === session.session)?.training.excluded).not.toBeNull();
      expect((await harness.api.labRuns.stop()).header.phase).toBe('stopped');
      off();
    }, 300_000);
  });
}
