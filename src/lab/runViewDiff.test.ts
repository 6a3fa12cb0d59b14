import { describe, expect, test } from 'vitest';
import type { CandidateView, RunView, SessionView } from '../contract';
import { applyRunPatches } from '../../renderer/src/lib/runPatches';
import { diffRunView, emptySentState } from './runViewDiff';

const pointer = { version: 'base', sha256: 'a'.repeat(64) };
const header = (update: number, completed: number): RunView['header'] => ({
  runId: 'r',
  runDir: '/runs/r',
  recipeName: 'embedded-gsm8k-style',
  recipeFile: '/recipes/e.yaml',
  seed: 1,
  confirm: 'manual',
  rounds: 3,
  batchTurns: 16,
  windowTurns: 16,
  klCoef: 0,
  maxUpdateNorm: 40,
  phase: 'running',
  error: null,
  heldBy: null,
  sessions: { planned: 72, completed, accepted: 0, adaptationSession: null, running: completed },
  serving: pointer,
  servedVersions: [pointer],
  startedAt: '2026-12-02T17:00:00.000Z',
  lastEventAt: '2026-12-02T17:00:00.000Z',
  journalEvents: 1,
  progress: { activeSeconds: 0, secondsPerSession: null, sessionSince: null, trainerStep: null },
  injections: [],
  live: null,
  update,
});
const session = (n: number): SessionView => ({
  session: n,
  at: '2026-12-02T17:00:00.000Z',
  taskId: `hw-${n}`,
  question: 'q',
  gold: 3,
  accepted: false,
  turns: 2,
  version: 'base',
  firstReply: '**x**',
  verdict: { accepted: false, reason: 'style', failures: ['style'], markers: [{ kind: 'bold', start: 0, end: 5 }], shownWork: [], goldAt: null },
  reaction: 'redo it',
  reward: -1,
  hint: null,
  curve: {
    session: n,
    accept: 0,
    bold: 1,
    bullets: 0,
    numbered: 0,
    list: 0,
    no_shown_work: 1,
    no_gold_answer: 1,
    style_clean: 0,
    turns: 2,
    first_reply_chars: 5,
    accept_cum: 0,
    accept_rate_10: 0,
    bold_rate_10: 1,
    list_rate_10: 0,
    style_clean_rate_10: 0,
  },
  training: { judgedTurns: null, samples: 0, prmMean: null, trainedIn: [], excluded: null },
  live: null,
});
const candidate = (state: CandidateView['state']): CandidateView => ({
  id: 'c1',
  version: 'v0-bbbbbbbb',
  sha256: 'b'.repeat(64),
  source: { kind: 'inject', badKind: 'nan-inf' },
  state,
  probingRound: null,
  passedRounds: 0,
  roundsRequired: 3,
  reason: state === 'rejected' ? { code: 'non-finite', detail: 'NaN', metric: null } : null,
  supersededBy: null,
  confirmedBy: null,
  updateNorm: null,
  maxUpdateNorm: 40,
  rounds: [],
  stagedAt: '2026-12-02T17:00:00.000Z',
  verifiedAt: null,
  decidedAt: null,
  stagedAfterSessions: 0,
  servingAtStage: pointer,
  servingAtDecision: state === 'rejected' ? pointer : null,
  heldForPerson: false,
});
const view = (update: number, sessions: SessionView[], candidates: CandidateView[]): RunView => ({
  header: header(update, sessions.length),
  sessions,
  trainerSteps: [],
  refusedSteps: [],
  candidates,
  servingHistory: [],
});

describe('run view patches: the lab diffs, the renderer merges', () => {
  test('a stream of patches rebuilds exactly the last view, and each carries only what changed', () => {
    const sent = emptySentState();
    const views = [view(1, [], []), view(2, [session(0)], [candidate('staged')]), view(3, [session(0), session(1)], [candidate('rejected')])];
    const patches = views.map((v, i) => diffRunView(sent, v, i === 0)!);
    expect(patches[1]!.sessions.map((s) => s.session)).toEqual([0]);
    expect(patches[2]!.sessions.map((s) => s.session)).toEqual([1]);
    expect(patches[2]!.candidates.map((c) => c.state)).toEqual(['rejected']);
    const outcome = applyRunPatches(null, patches);
    expect(outcome).toEqual({ kind: 'applied', run: views[2] });
  });

  test('nothing changed → no patch; a header change alone → a patch with no items', () => {
    const sent = emptySentState();
    diffRunView(sent, view(1, [session(0)], []), true);
    expect(diffRunView(sent, view(2, [session(0)], []), false)).toBeNull();
    const moved = view(2, [session(0)], []);
    moved.header.phase = 'stopping';
    expect(diffRunView(sent, moved, false)).toMatchObject({ reset: false, sessions: [], candidates: [], header: { phase: 'stopping' } });
  });

  test('a gap in the update numbers asks for the whole view again; an old patch is ignored', () => {
    const sent = emptySentState();
    const first = diffRunView(sent, view(1, [], []), true)!;
    diffRunView(sent, view(2, [session(0)], []), false); // lost on the way
    const third = diffRunView(sent, view(3, [session(0), session(1)], []), false)!;
    expect(applyRunPatches(null, [first, third])).toEqual({ kind: 'refetch' });
    const snapshot = view(3, [session(0), session(1)], []);
    expect(applyRunPatches(snapshot, [third])).toEqual({ kind: 'applied', run: snapshot });
  });

  test('a patch for another run folder is not merged into this one', () => {
    const other = view(2, [session(0)], []);
    other.header.runDir = '/runs/other';
    const sent = emptySentState();
    diffRunView(sent, view(1, [], []), true);
    const patch = diffRunView(sent, other, false)!;
    expect(applyRunPatches(view(1, [], []), [patch])).toEqual({ kind: 'refetch' });
  });
});
