// OpenClaw, the real agent, end to end through live mode: `gatelab live`'s
// library entry on the SmolLM2 CPU recipe (shortened: vLLM serving and
// probing SmolLM2-135M-Instruct at its full 8,192-token context, the torch
// trainer, the rule judge, the real gate), and several
// `openclaw agent --local` turns in one OpenClaw session, configured as a user
// would (its session-affinity headers on, the small-prompt settings). The lab
// must record them as ONE session recognised by OpenClaw's affinity headers,
// each reply judged by what came next (the user's next message, or a tool's
// result when OpenClaw called one), and train one step from that session
// alone; the candidate goes through the gate (verified, three probe rounds on
// the probe engine, a person's confirmation through the control endpoint) and
// serves OpenClaw's next turn. Every line OpenClaw shows of a reply must be
// the gateway's. Every wait is on a journal event or a process's exit, never
// on time.
// Skipped, with the reason, where this machine has no OpenClaw install
// (`npm run setup:openclaw`, which needs Node 24) or cannot run the recipe
// (no vLLM environment, no model, no torch trainer backend).
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import type { JournalEvent } from '../src/core/journal/journalEvents';
import { loadRecipe } from '../src/core/recipe/loadRecipe';
import { reasonsNotRunnable, thisHost } from '../src/run/composeRun';
import { startLiveMode, type LiveMode } from '../src/run/live/liveMode';
import { sessionIdOf } from '../src/run/live/sessionExclusion';
import type { TurnRecord } from '../src/run/turnLog';
import { askLiveRun, startControlServer } from '../src/surfaces/control/controlServer';
import { findOpenClaw, prepareOpenClaw, runOpenClawTurn, type OpenClawAgent, type OpenClawTurn } from './helpers/openclaw';
import { shortenSmolRecipe } from './helpers/shortSmolRecipe';
import { journaled } from './helpers/journaled';
import { repoRoot } from './helpers/testRecipe';

const recipeFile = path.join(repoRoot, 'recipes', 'smollm2-135m-cpu.yaml');
const openClaw = findOpenClaw();
const reasons = [...('missing' in openClaw ? [openClaw.missing] : []), ...reasonsNotRunnable((await loadRecipe(recipeFile)).recipe, thisHost())];
if (reasons.length > 0) console.warn(`openclaw.integration.test.ts skipped: ${reasons.join('; ')}`);

/** SmolLM2's own context: OpenClaw's prompt (about 1,850 tokens with the small-prompt settings) and the conversation must fit. */
const CONTEXT = 8192;
/** A short reply keeps a CPU turn to tens of seconds. */
const MAX_TOKENS = 64;
/** One turn on two shared CPU cores: OpenClaw's start (~10 s) and a ~2,000-token prefill. Generous: a limit, never an assertion. */
const TURN_LIMIT_MS = 900_000;

/**
 * What the user says, in the words the recipe's rule judge reads: a question;
 * a complaint about the formatting (the reply before it scores −1, and its
 * hindsight is the hint for OPD); thanks that end the task (+1). The last
 * reply has no next state and is not trained.
 */
const USER_TURNS = [
  'What is 12 + 30? Show your work.',
  'This looks too AI-written. Write it as plain sentences, without bold or lists.',
  'Thanks, that is much better. HOMEWORK_DONE',
];
/** The rule judge's score of the reply each user message answers (the first answers none). */
const SCORE_BY_NEXT_USER = [undefined, -1, 1] as const;
/** Said once the candidate serves. */
const AFTER_PROMOTION = 'One more: what is 7 + 5?';
/** Two judged turns: one trainer step from this one session. */
const BATCH_TURNS = 2;

async function shortRecipe(dir: string): Promise<string> {
  const doc = parseDocument(await readFile(recipeFile, 'utf8'));
  shortenSmolRecipe(doc, 1);
  doc.setIn(['policy', 'sampling', 'max_tokens'], MAX_TOKENS);
  doc.setIn(['trainer', 'batch_turns'], BATCH_TURNS);
  doc.setIn(['trainer', 'window_turns'], BATCH_TURNS);
  // A person confirms: the gate's full path (verify, three probe rounds of two problems, confirm).
  doc.setIn(['gate', 'confirm'], 'manual');
  // As in smollm2Run.integration.test.ts, this copy's rounds cannot fail on a rate, so that
  // "probed, confirmed and served" is certain, not likely: no rate in [0, 1] is below serving's
  // minus 1 or below a floor of 0, and no 64-token reply holds a million style markers more than
  // serving's. (With the recipe's floors, 64-token probe replies are all cut short, answered 0
  // < 0.5, and the first round rejects every candidate.) The rounds still run in full on the
  // probe engine and are journaled; what can still reject the candidate is a real failure —
  // verify, a probe that errs, a promotion whose re-verify fails — which must fail the test.
  doc.setIn(['gate', 'margins'], { pass_rate: 1, gold_rate: 1, answered_rate: 1, mean_violations: 1_000_000 });
  doc.setIn(['gate', 'floors'], { gold_rate: 0, answered_rate: 0 });
  const file = path.join(dir, 'recipe.yaml');
  await writeFile(file, doc.toString());
  return file;
}

/**
 * The lines OpenClaw shows of a reply: it appends a notice to a reply cut at
 * maxTokens and shows a paragraph the model repeated once, so each line it
 * shows, not the whole text, must be the gateway's.
 */
function shownLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('⚠️ Reply truncated'));
}

type SessionCompleted = Extract<JournalEvent, { type: 'session-completed' }>;
type Transcript = {
  live: { name: string; recognisedBy: string };
  turns: { reply: string; nextState: string | null; judgment: { score: number; hint?: string } | null; training: string | null; skipped?: string }[];
};

describe.skipIf(reasons.length > 0)('OpenClaw through live mode (vLLM + torch, SmolLM2-135M): one session, judged turns, a candidate at the gate', () => {
  let root: string;
  let live: LiveMode;
  let control: { close(): Promise<void> };
  let agent: OpenClawAgent;
  const session = `gatelab-e2e-${randomBytes(4).toString('hex')}`;
  const outputs: OpenClawTurn[] = [];
  /** The gateway's records of each OpenClaw turn (more than one when OpenClaw called a tool). */
  const recordsOf: TurnRecord[][] = [];
  let completed: SessionCompleted;
  let transcript: Transcript;
  let events: JournalEvent[];
  let afterPromotion: OpenClawTurn;
  let afterPromotionRecords: readonly TurnRecord[];

  beforeAll(
    async () => {
      if ('missing' in openClaw) throw new Error(openClaw.missing);
      root = await mkdtemp(path.join(tmpdir(), 'gatelab-openclaw-'));
      // The served context as a person gives it (gatelab live --max-model-len, the Live tab's field), not a recipe edit.
      live = await startLiveMode(await shortRecipe(root), path.join(root, 'run'), { idleSeconds: 3600, overrides: { maxModelLen: CONTEXT } });
      control = await startControlServer(live.run);
      const { baseUrl, token, model } = live.endpoint;
      agent = prepareOpenClaw(
        openClaw,
        path.join(root, 'openclaw'),
        { baseUrl: baseUrl.replace(/\/v1$/u, ''), token, model },
        { contextWindow: CONTEXT, maxTokens: MAX_TOKENS },
      );
      for (const message of USER_TURNS) {
        const before = live.run.servedTurns().length;
        const output = await runOpenClawTurn(agent, session, message, TURN_LIMIT_MS);
        outputs.push(output);
        const records = live.run.servedTurns().slice(before);
        recordsOf.push([...records]);
        console.log(
          `openclaw turn ${outputs.length}: ${output.seconds.toFixed(1)} s; ${records
            .map(
              (t) =>
                `${t.response.promptTokens} prompt tokens, engine ${(t.timings.engineMs / 1000).toFixed(1)} s${t.response.toolCalls?.length ? ', a tool call' : ''}`,
            )
            .join('; ')}`,
        );
      }
      // OpenClaw never says a session is done: it is journaled after a quiet spell, or here, as live mode stopping would.
      await live.sessions.closeAll();
      const { journal } = live.run;
      completed = await journaled(journal, (e): e is SessionCompleted => e.type === 'session-completed');
      transcript = JSON.parse(await readFile(path.join(live.run.runDir, completed.transcript), 'utf8')) as Transcript;
      if (completed.samples.count < BATCH_TURNS) {
        // Only when OpenClaw called a tool: a conversation holding tool turns cannot be a train sample.
        throw new Error(`the session gave ${completed.samples.count} train samples, fewer than a step's ${BATCH_TURNS}: ${JSON.stringify(transcript.turns)}`);
      }
      const verdict = await journaled(
        journal,
        (e): e is Extract<JournalEvent, { type: 'candidate-awaiting-confirm' | 'candidate-rejected' }> =>
          e.type === 'candidate-awaiting-confirm' || e.type === 'candidate-rejected',
      );
      if (verdict.type === 'candidate-rejected') throw new Error(`the gate rejected the trainer's candidate: ${JSON.stringify(verdict.reason)}`);
      // A person confirms it, as `gatelab confirm` does from another process; the answer comes once serving swapped.
      await askLiveRun(live.run.runDir, { action: 'confirm', id: verdict.id });
      events = [...journal.events];
      // OpenClaw goes on talking: served by the promoted version (its session, journaled before, picked up again is a new one).
      const before = live.run.servedTurns().length;
      afterPromotion = await runOpenClawTurn(agent, session, AFTER_PROMOTION, TURN_LIMIT_MS);
      afterPromotionRecords = live.run.servedTurns().slice(before);
    },
    3 * TURN_LIMIT_MS + 1_200_000,
  );

  afterAll(async () => {
    await control?.close();
    await live?.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 120_000);

  it('answers every OpenClaw turn through the gateway, each request carrying the conversation so far', () => {
    const all = recordsOf.flat();
    expect(recordsOf.every((records) => records.length >= 1)).toBe(true);
    // OpenClaw's affinity headers, the same value on every request of the session (the first included).
    expect(new Set(all.map((t) => t.affinity?.sessionId))).toEqual(new Set([`${session}:0`]));
    expect(all.every((t) => t.sessionId === null && t.stream && t.response.completionTokens <= MAX_TOKENS)).toBe(true);
    for (const [index, records] of recordsOf.entries()) {
      const last = records.at(-1)!;
      // OpenClaw's system prompt, then every earlier message (wrapped in OpenClaw's envelope), then this one.
      const users = last.messages.filter((m) => m.role === 'user').map((m) => m.content);
      expect(last.messages[0]?.role).toBe('system');
      expect(users).toHaveLength(index + 1);
      for (const [earlier, message] of USER_TURNS.slice(0, index + 1).entries()) expect(users[earlier]).toContain(message);
      expect(last.response.promptTokens).toBeLessThan(CONTEXT - MAX_TOKENS);
      // OpenClaw's output holds the gateway's reply for this session, line by line (see shownLines).
      expect(outputs[index]?.meta.agentMeta).toMatchObject({ sessionId: session, provider: 'gatelab', model: live.endpoint.model });
      const shown = shownLines((outputs[index]?.payloads ?? []).map((p) => p.text ?? '').join('\n'));
      expect(shown.length).toBeGreaterThan(0);
      for (const line of shown) expect(last.response.text).toContain(line);
    }
  });

  it('journals the OpenClaw session as one session, recognised by its affinity headers, each reply judged by what came next', () => {
    const sessions = events.filter((e): e is SessionCompleted => e.type === 'session-completed');
    expect(sessions).toHaveLength(1);
    expect(completed).toMatchObject({ session: 0, taskId: `live:affinity:${session}`, turns: recordsOf.flat().length });
    expect(transcript.live).toEqual({ name: `affinity:${session}`, recognisedBy: 'affinity' });
    // Each served reply, in order: the last of an OpenClaw turn is judged by the user's next
    // message (its words, without OpenClaw's envelope); a tool call by the tool's result.
    const expected = recordsOf.flatMap((records, turn) =>
      records.map((record, r) => {
        const lastOfTurn = r === records.length - 1;
        if (!lastOfTurn) return { tool: true as const, record };
        return { tool: false as const, next: USER_TURNS[turn + 1], score: SCORE_BY_NEXT_USER[turn + 1], record };
      }),
    );
    expect(transcript.turns).toHaveLength(expected.length);
    for (const [index, want] of expected.entries()) {
      const got = transcript.turns[index]!;
      expect(got.reply).toBe(want.record.response.text);
      if (want.tool) {
        expect(got.nextState).toMatch(/^\[tool result\] /u);
        expect(got.judgment).not.toBeNull();
      } else if (want.next === undefined) {
        expect(got.nextState).toBeNull();
        expect(got.judgment).toBeNull();
        expect(got.skipped).toMatch(/no next state/u);
      } else {
        expect(got.nextState).toBe(want.next);
        expect(got.judgment?.score).toBe(want.score);
      }
    }
    // The complaint's hindsight is the hint: that turn trains both ways (Binary RL and hindsight OPD).
    const complained = transcript.turns.find((t) => t.nextState === USER_TURNS[1]);
    expect(complained?.judgment?.hint).toBe('Write it as plain sentences, without bold or lists.');
    expect(complained?.training).toBe('both');
    expect(completed.samples.count).toBe(BATCH_TURNS);
  });

  it('trains one step from that session and the gate decides on its candidate, probe rounds and all', () => {
    const steps = events.filter((e): e is Extract<JournalEvent, { type: 'trainer-step' }> => e.type === 'trainer-step');
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ step: 1, samples: BATCH_TURNS, sessionIds: [sessionIdOf(live.run.runId, 0)] });
    const version = steps[0]!.candidate.version;
    const staged = events.find((e): e is Extract<JournalEvent, { type: 'candidate-staged' }> => e.type === 'candidate-staged');
    expect(staged).toMatchObject({ version, source: { kind: 'trainer', step: 1 } });
    const { id } = staged!;
    // Three probe rounds, each candidate and serving sampled on the probe set, passed in a row; a person's confirmation; serving.
    const rounds = events.filter((e): e is Extract<JournalEvent, { type: 'probe-round' }> => e.type === 'probe-round' && e.id === id);
    expect(rounds.map((r) => [r.round, r.passed, r.serving.version])).toEqual([
      [1, true, 'base'],
      [2, true, 'base'],
      [3, true, 'base'],
    ]);
    const after = (type: JournalEvent['type']) => events.findIndex((e) => e.type === type && 'id' in e && e.id === id);
    expect(after('candidate-awaiting-confirm')).toBeGreaterThan(events.indexOf(rounds[2]!));
    expect(events[after('candidate-confirmed')]).toMatchObject({ by: 'person' });
    expect(events[after('candidate-promoted')]).toMatchObject({ pointer: { version }, previous: { version: 'base' } });
    expect(events.some((e) => e.type === 'candidate-rejected' || e.type === 'serving-rolled-back')).toBe(false);
  });

  it('serves OpenClaw’s next turn with the promoted candidate', () => {
    const version = events.find((e) => e.type === 'candidate-promoted')?.pointer.version;
    expect(afterPromotionRecords.length).toBeGreaterThanOrEqual(1);
    expect(afterPromotionRecords.every((t) => t.version === version)).toBe(true);
    const shown = shownLines(afterPromotion.payloads.map((p) => p.text ?? '').join('\n'));
    expect(shown.length).toBeGreaterThan(0);
    for (const line of shown) expect(afterPromotionRecords.at(-1)?.response.text).toContain(line);
  });
});
