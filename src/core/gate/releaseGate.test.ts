import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJournal } from '../journal/appendOnlyJournal';
import { journalEventSchema } from '../journal/journalEvents';
import { journalFile } from '../journal/runJournal';
import { readServingPointer } from '../journal/servingPointer';
import { serializeSafetensors } from '../weights/safetensors';
import {
  adapterTensors,
  baseVersion,
  behaviours,
  healthyBytes,
  newRunDir,
  openGate,
  RecordingServing,
  removeRunDirs,
  ScriptedProbeSampler,
  storeBlob,
  tinySpec,
} from './testing/gateFixtures';

const trainer = (step: number) => ({ kind: 'trainer' as const, step });

async function journalTypes(runDir: string, id: string): Promise<string[]> {
  const { events } = await readJournal(journalFile(runDir), journalEventSchema);
  return events.filter((e) => 'id' in e && e.id === id).map((e) => e.type);
}

describe('release gate', () => {
  afterAll(removeRunDirs);

  it('walks a healthy candidate through verify, three paired rounds, a person’s confirmation and promotion', async () => {
    const runDir = await newRunDir();
    const probe = new ScriptedProbeSampler(behaviours.styled);
    const serving = new RecordingServing();
    const { gate } = await openGate(runDir, { confirm: 'manual', probe, serving });
    const blob = await storeBlob(runDir, healthyBytes(), 1);
    probe.behave(blob.version, behaviours.clean);

    const c = await gate.stage({ ...blob, source: trainer(1) });
    await gate.idle();
    expect(c.state.kind).toBe('awaiting-confirm');
    expect(c.rounds.map((r) => r.passed)).toEqual([true, true, true]);
    // Paired: each round sampled candidate and serving on the same seed, seeds fresh per round.
    expect(probe.calls.map((x) => x.version)).toEqual([blob.version, 'base', blob.version, 'base', blob.version, 'base']);
    const seeds = probe.calls.map((x) => x.seed);
    expect(seeds[0]).toBe(seeds[1]);
    expect(new Set(seeds).size).toBe(3);
    expect(c.rounds[0]?.serving.version).toBe('base');
    expect(serving.swaps).toEqual([]);
    expect(await readServingPointer(runDir)).toEqual(baseVersion);

    await gate.confirm(c.id, 'person');
    expect(c.state.kind).toBe('promoted');
    expect(await readServingPointer(runDir)).toEqual({ version: blob.version, sha256: blob.sha256 });
    expect(serving.swaps).toEqual([blob.version]);
    expect(await journalTypes(runDir, c.id)).toEqual([
      'candidate-staged',
      'candidate-verified',
      'candidate-probing',
      'probe-round',
      'candidate-probing',
      'probe-round',
      'candidate-probing',
      'probe-round',
      'candidate-awaiting-confirm',
      'candidate-confirmed',
      'candidate-promoted',
    ]);
    // The evidence a person reads: each side's replies with the markers found.
    const round = JSON.parse(await readFile(path.join(runDir, c.rounds[0]!.replies), 'utf8'));
    expect(round.serving[0].verdict.markers.length).toBeGreaterThan(0);
  });

  it.each([
    [
      'non-finite',
      () => {
        const t = adapterTensors();
        const first = t.get(tinySpec[0]!.name)!;
        first.data[0] = Number.NaN;
        first.data[1] = Number.POSITIVE_INFINITY;
        return serializeSafetensors(t);
      },
    ],
    [
      'tensor-spec',
      () => {
        const t = adapterTensors();
        const s = tinySpec[1]!;
        t.set(s.name, { shape: [s.shape[0] + 1, s.shape[1]], data: new Float32Array((s.shape[0] + 1) * s.shape[1]) });
        return serializeSafetensors(t);
      },
    ],
    ['update-norm', () => healthyBytes(1)],
    ['unreadable', () => new TextEncoder().encode('not a safetensors file')],
  ] as const)('rejects a %s candidate at verify, before any probe, with the pointer unchanged', async (code, bytes) => {
    const runDir = await newRunDir();
    const probe = new ScriptedProbeSampler(behaviours.styled);
    const { gate } = await openGate(runDir, { confirm: 'auto', probe, serving: new RecordingServing() });
    const c = await gate.stage({ ...(await storeBlob(runDir, bytes(), 0)), source: { kind: 'inject', badKind: 'nan-inf' } });
    await gate.idle();
    expect(c.state).toMatchObject({ kind: 'rejected', reason: { code } });
    expect(probe.calls).toEqual([]);
    expect(await readServingPointer(runDir)).toEqual(baseVersion);
  });

  it('rejects bytes that do not match the manifest hash', async () => {
    const runDir = await newRunDir();
    const bytes = healthyBytes();
    const claimed = (await storeBlob(runDir, bytes, 0)).sha256;
    const corrupted = bytes.slice();
    corrupted[corrupted.length - 3] ^= 0xff;
    const { gate } = await openGate(runDir, { confirm: 'auto', probe: new ScriptedProbeSampler(behaviours.styled) });
    const c = await gate.stage({ ...(await storeBlob(runDir, corrupted, 0, claimed)), source: { kind: 'inject', badKind: 'corrupted-bytes' } });
    await gate.idle();
    expect(c.state).toMatchObject({ kind: 'rejected', reason: { code: 'hash-mismatch' } });
  });

  it('floor effect: serving already fails every reply on style, and garbage is still rejected on gold and answered', async () => {
    for (const [garbage, metric] of [
      [behaviours.wrongGold, 'gold_rate'],
      [behaviours.empty, 'pass_rate'],
      [behaviours.runaway, 'answered_rate'],
      [behaviours.markdownHeavy, 'mean_violations'],
    ] as const) {
      const runDir = await newRunDir();
      const probe = new ScriptedProbeSampler(behaviours.styled); // serving: pass_rate 0, clean 0
      const { gate } = await openGate(runDir, { confirm: 'auto', probe, serving: new RecordingServing() });
      const blob = await storeBlob(runDir, healthyBytes(0.02), 0);
      probe.behave(blob.version, garbage);
      const c = await gate.stage({ ...blob, source: { kind: 'inject', badKind: 'random-noise' } });
      await gate.idle();
      expect(c.state.kind).toBe('rejected');
      const failing = c.rounds[0]!.failing.join(' ');
      expect(failing).toContain(metric === 'pass_rate' ? 'answered_rate' : metric);
      expect(c.rounds[0]!.serving.pass_rate).toBe(0);
      expect(await readServingPointer(runDir)).toEqual(baseVersion);
    }
  });

  it('an injected candidate is rejected while another awaits confirmation, which still awaits afterwards', async () => {
    const runDir = await newRunDir();
    const probe = new ScriptedProbeSampler(behaviours.styled);
    const { gate } = await openGate(runDir, { confirm: 'manual', probe, serving: new RecordingServing() });
    const good = await storeBlob(runDir, healthyBytes(), 1);
    probe.behave(good.version, behaviours.clean);
    const waiting = await gate.stage({ ...good, source: trainer(1) });
    await gate.idle();
    expect(waiting.state.kind).toBe('awaiting-confirm');
    const bad = await storeBlob(runDir, healthyBytes(0.03), 0);
    probe.behave(bad.version, behaviours.empty);
    const injected = await gate.stage({ ...bad, source: { kind: 'inject', badKind: 'collapsed' } });
    await gate.idle();
    // Serving already fails every reply on style (pass_rate 0), so the empty replies fail on gold first.
    expect(injected.state).toMatchObject({ kind: 'rejected', reason: { code: 'regression', metric: 'gold_rate' } });
    expect(waiting.state.kind).toBe('awaiting-confirm');
    expect(await readServingPointer(runDir)).toEqual(baseVersion);
  });

  it('a person can reject a candidate in the middle of a probe round; the round result is then dropped', async () => {
    const runDir = await newRunDir();
    const probe = new ScriptedProbeSampler(behaviours.styled);
    let release!: () => void;
    probe.gate = new Promise<void>((r) => (release = r));
    const { gate } = await openGate(runDir, { confirm: 'auto', probe, serving: new RecordingServing() });
    const blob = await storeBlob(runDir, healthyBytes(), 1);
    probe.behave(blob.version, behaviours.clean);
    const c = await gate.stage({ ...blob, source: trainer(1) });
    while (probe.calls.length === 0) await new Promise((r) => setTimeout(r, 1));
    await gate.reject(c.id, 'looks odd to me');
    release();
    await gate.idle();
    expect(c.state).toMatchObject({ kind: 'rejected', reason: { code: 'person', detail: 'looks odd to me' } });
    expect(c.rounds).toEqual([]);
    await expect(gate.confirm(c.id, 'person')).rejects.toThrow(/rejected/);
  });

  it('fails closed when the probe engine fails', async () => {
    const runDir = await newRunDir();
    const probe = new ScriptedProbeSampler(behaviours.styled);
    probe.failNext = new Error('probe engine crashed');
    const { gate } = await openGate(runDir, { confirm: 'auto', probe, serving: new RecordingServing() });
    const c = await gate.stage({ ...(await storeBlob(runDir, healthyBytes(), 1)), source: trainer(1) });
    await gate.idle();
    expect(c.state).toMatchObject({ kind: 'rejected', reason: { code: 'probe-error', detail: 'probe engine crashed' } });
    expect(await readServingPointer(runDir)).toEqual(baseVersion);
  });

  it('a newer trainer candidate supersedes an older one that has not started probing', async () => {
    const runDir = await newRunDir();
    const { gate } = await openGate(runDir, { confirm: 'manual' }); // no probe engine: candidates wait after verify
    const one = await gate.stage({ ...(await storeBlob(runDir, healthyBytes(0.01), 1)), source: trainer(1) });
    const injected = await gate.stage({ ...(await storeBlob(runDir, healthyBytes(0.03), 0)), source: { kind: 'file', path: 'x' } });
    const two = await gate.stage({ ...(await storeBlob(runDir, healthyBytes(0.02), 2)), source: trainer(2) });
    await gate.idle();
    expect(one.state).toEqual({ kind: 'superseded', by: two.id });
    expect(two.state.kind).toBe('verified');
    expect(injected.state.kind).toBe('verified'); // only the trainer's own lineage is superseded
  });

  describe('the waiting-candidate rule: a candidate awaiting a person is the person’s to decide', () => {
    it('a newer passing trainer candidate never supersedes it: the trainer’s newest waits after verify until the person decides, then is probed against what serves', async () => {
      const runDir = await newRunDir();
      const probe = new ScriptedProbeSampler(behaviours.styled);
      const serving = new RecordingServing();
      const { gate } = await openGate(runDir, { confirm: 'manual', probe, serving });
      const blobs = await Promise.all([1, 2, 3].map((step) => storeBlob(runDir, healthyBytes(0.01 + step / 1000), step)));
      for (const blob of blobs) probe.behave(blob.version, behaviours.clean);

      const waiting = await gate.stage({ ...blobs[0]!, source: trainer(1) });
      await gate.idle();
      expect(waiting.state.kind).toBe('awaiting-confirm');
      const callsWhileWaiting = probe.calls.length;

      // Two newer trainer candidates arrive while it waits: both verified, neither probed; the newest supersedes the older.
      const two = await gate.stage({ ...blobs[1]!, source: trainer(2) });
      await gate.idle();
      expect(two.state.kind).toBe('verified');
      expect(gate.heldForPerson(two)).toBe(true);
      const three = await gate.stage({ ...blobs[2]!, source: trainer(3) });
      await gate.idle();
      expect(two.state).toEqual({ kind: 'superseded', by: three.id });
      expect(three.state.kind).toBe('verified');
      expect(waiting.state.kind).toBe('awaiting-confirm');
      expect(probe.calls.length).toBe(callsWhileWaiting);

      // The person confirms: it is promoted, and the held candidate is probed against the new serving version.
      await gate.confirm(waiting.id, 'person');
      await gate.idle();
      expect(waiting.state.kind).toBe('promoted');
      expect(three.state.kind).toBe('awaiting-confirm');
      expect(three.rounds.map((r) => r.serving.version)).toEqual([blobs[0]!.version, blobs[0]!.version, blobs[0]!.version]);
      expect(probe.calls.slice(callsWhileWaiting).map((c) => c.version)).toEqual([
        three.version,
        waiting.version,
        three.version,
        waiting.version,
        three.version,
        waiting.version,
      ]);
      expect(await journalTypes(runDir, waiting.id)).not.toContain('candidate-superseded');
    });

    it('a rejection lets the held candidate go on too; an injected candidate is probed at once while one waits', async () => {
      const runDir = await newRunDir();
      const probe = new ScriptedProbeSampler(behaviours.styled);
      const { gate } = await openGate(runDir, { confirm: 'manual', probe, serving: new RecordingServing() });
      const [first, second, bad] = await Promise.all([1, 2, 0].map((step) => storeBlob(runDir, healthyBytes(0.011 + step / 1000), step)));
      probe.behave(first!.version, behaviours.clean);
      probe.behave(second!.version, behaviours.clean);
      probe.behave(bad!.version, behaviours.empty);
      const waiting = await gate.stage({ ...first!, source: trainer(1) });
      await gate.idle();
      const held = await gate.stage({ ...second!, source: trainer(2) });
      const injected = await gate.stage({ ...bad!, source: { kind: 'inject', badKind: 'collapsed' } });
      await gate.idle();
      expect(injected.state).toMatchObject({ kind: 'rejected', reason: { code: 'regression' } });
      expect(held.state.kind).toBe('verified');
      await gate.reject(waiting.id, 'not this one');
      await gate.idle();
      expect(held.state.kind).toBe('awaiting-confirm');
      expect(gate.pointer).toEqual(baseVersion);
    });

    it('evidence holds against the version it was probed against: once another serves, Confirm is refused and Reject still works', async () => {
      const runDir = await newRunDir();
      const probe = new ScriptedProbeSampler(behaviours.styled);
      const { gate } = await openGate(runDir, { confirm: 'manual', probe, serving: new RecordingServing() });
      const [a, b] = await Promise.all([1, 2].map((n) => storeBlob(runDir, healthyBytes(0.01 + n / 1000), 0)));
      probe.behave(a!.version, behaviours.clean);
      probe.behave(b!.version, behaviours.clean);
      const one = await gate.stage({ ...a!, source: { kind: 'file', path: 'a' } });
      const two = await gate.stage({ ...b!, source: { kind: 'file', path: 'b' } });
      await gate.idle();
      expect([one.state.kind, two.state.kind]).toEqual(['awaiting-confirm', 'awaiting-confirm']);
      await gate.confirm(one.id, 'person');
      await expect(gate.confirm(two.id, 'person')).rejects.toThrow(`candidate ${two.id} was probed against base, but ${a!.version} serves now`);
      expect(two.state.kind).toBe('awaiting-confirm');
      expect(gate.pointer.version).toBe(a!.version);
      await gate.reject(two.id, 'probed against base');
      expect(two.state.kind).toBe('rejected');
    });
  });

  it('resumes from the journal: a round cut short starts again with a fresh seed; auto-confirm then promotes', async () => {
    const runDir = await newRunDir();
    const probe = new ScriptedProbeSampler(behaviours.styled);
    probe.holdFrom = 2; // round 1 (two calls) completes, round 2 never does: the "crash"
    const first = await openGate(runDir, { confirm: 'auto', probe });
    const blob = await storeBlob(runDir, healthyBytes(), 4);
    probe.behave(blob.version, behaviours.clean);
    const c = await first.gate.stage({ ...blob, source: trainer(4) });
    while (probe.calls.length < 3) await new Promise((r) => setTimeout(r, 1));
    const seedOfCutRound = c.state.kind === 'probing' ? first.journal.events.at(-1) : undefined;
    await first.journal.close();

    const resumedProbe = new ScriptedProbeSampler(behaviours.styled);
    resumedProbe.behave(blob.version, behaviours.clean);
    const serving = new RecordingServing();
    const second = await openGate(runDir, { confirm: 'auto', probe: resumedProbe, serving });
    const again = second.gate.candidate(c.id);
    expect(again.state).toMatchObject({ kind: 'probing', round: 2, passedRounds: 1 });
    second.gate.kick();
    await second.gate.idle();
    expect(again.state.kind).toBe('promoted');
    expect(again.rounds.map((r) => r.round)).toEqual([1, 2, 3]);
    expect(seedOfCutRound?.type === 'candidate-probing' && seedOfCutRound.seed).not.toBe(again.rounds[1]?.seed);
    expect(serving.swaps).toEqual([blob.version]);
  });

  it('rolls back only to a version that served, and re-checks its blob first', async () => {
    const runDir = await newRunDir();
    const probe = new ScriptedProbeSampler(behaviours.styled);
    const serving = new RecordingServing();
    const { gate } = await openGate(runDir, { confirm: 'auto', probe, serving });
    const blob = await storeBlob(runDir, healthyBytes(), 1);
    probe.behave(blob.version, behaviours.clean);
    await gate.stage({ ...blob, source: trainer(1) });
    await gate.idle();
    expect(gate.pointer.version).toBe(blob.version);
    await expect(gate.rollback('v9-deadbeef')).rejects.toThrow(/only versions that served/);
    await gate.rollback('base');
    expect(await readServingPointer(runDir)).toEqual(baseVersion);
    // Tamper with the promoted blob: rolling forward to it is refused.
    await writeFile(path.join(runDir, blob.blob), 'tampered');
    await expect(gate.rollback(blob.version)).rejects.toThrow(/cannot roll back/);
    expect(serving.swaps).toEqual([blob.version, null]);
  });

  it('puts the previous version back when serving cannot load the promoted one', async () => {
    const runDir = await newRunDir();
    const probe = new ScriptedProbeSampler(behaviours.styled);
    const serving = new RecordingServing();
    serving.fail = new Error('engine gone');
    const { gate, errors } = await openGate(runDir, { confirm: 'auto', probe, serving });
    const blob = await storeBlob(runDir, healthyBytes(), 1);
    probe.behave(blob.version, behaviours.clean);
    const c = await gate.stage({ ...blob, source: trainer(1) });
    await gate.idle();
    expect(c.state.kind).toBe('promoted');
    expect(gate.pointer).toEqual(baseVersion);
    expect(await readServingPointer(runDir)).toEqual(baseVersion);
    expect(errors[0]?.message).toMatch(/engine gone/);
  });
});
