import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CURVE_COLUMNS } from '../lab/metrics/curve';
import { GATE_COLUMNS } from '../lab/metrics/gateCsv';
import type { LabApi } from './api';
import type { LabEventName, LabMethodName } from './channels';
import { LAB_METHOD_CHANNELS } from './channelLists';
import { LabError } from './errors';
import type { LabEnvelope } from './errors';

export const REFERENCE_ID = 'reef-2026-09-14-qwen3.5-9b-gated';
export const REPO_ASSETS_DIR = fileURLToPath(new URL('../../assets', import.meta.url));
const REFERENCE_DIR = join(REPO_ASSETS_DIR, 'reference', '2026-09-14-qwen3.5-9b-gated');

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
export function defineContractSuite(transportName: string, start: () => Promise<ContractHarness>): void {
  describe(`LabApi contract over ${transportName}`, () => {
    let harness: ContractHarness;
    beforeAll(async () => {
      harness = await start();
      await harness.eventsReady();
    });
    afterAll(async () => {
      await harness.close();
    });

    const curveText = readFileSync(join(REFERENCE_DIR, 'curve.csv'), 'utf8');
    const gateText = readFileSync(join(REFERENCE_DIR, 'gate.csv'), 'utf8');

    test('app.info names the app', async () => {
      const info = await harness.api.app.info();
      expect(info.name).toBe('GateLab');
      expect(info.versions.node).toMatch(/^\d+\./);
    });

    test('every method channel answers', async () => {
      for (const channel of LAB_METHOD_CHANNELS) {
        const envelope = await harness.rawInvoke(channel, {});
        // Some methods need params; what matters is that each has a handler behind it.
        expect(envelope.ok || envelope.error.code === 'invalid-params', channel).toBe(true);
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
        session: 5, accept: 0, bold: 1, bullets: 1, numbered: 1, list: 1, no_shown_work: 1, no_gold_answer: 0,
        style_clean: 0, turns: 3, first_reply_chars: 514, accept_cum: 0, accept_rate_10: 0,
        bold_rate_10: 0.8333333333333334, list_rate_10: 0.6666666666666666, style_clean_rate_10: 0.16666666666666666,
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
      expect(run.files.map((f) => [f.name, f.role])).toEqual([['curve.csv', 'curve'], ['gate.csv', 'gate']]);
    });

    test('a malformed curve.csv is refused naming its line and column', async () => {
      const lines = curveText.split('\n');
      lines[4] = lines[4]!.replace(/^3,0,/, '3,x,');
      const error = await harness.api.runs
        .openFiles({ files: [{ name: 'broken.csv', text: lines.join('\n') }] })
        .then(() => null, (e: unknown) => e);
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
        harness.api.runs.openFiles({ files: [{ name: 'curve.csv', text: curveText }, { name: 'gate.csv', text: gate }] }),
      ).rejects.toMatchObject({ code: 'invalid-csv', details: { file: 'gate.csv', line: 9, column: 2, columnName: 'outcome' } });
    });

    test('a gate.csv alone, or a file that is neither, is refused', async () => {
      await expect(harness.api.runs.openFiles({ files: [{ name: 'gate.csv', text: gateText }] })).rejects.toMatchObject({
        code: 'invalid-csv',
      });
      await expect(
        harness.api.runs.openFiles({ files: [{ name: 'notes.csv', text: 'a,b\n1,2\n' }] }),
      ).rejects.toMatchObject({ code: 'invalid-csv', details: { file: 'notes.csv', line: 1 } });
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
  });
}
