// Live mode on the embedded recipe (shortened): `gatelab live`'s library
// entry serves the official OpenAI JS client, which talks three multi-turn
// conversations — one with OpenClaw-RL's X-Session-Id headers, one with
// OpenClaw's affinity headers, one with none, the last two interleaved. Each
// is journaled as a session with its judged turns; a session excluded before
// it trained never reaches the trainer; the others train a candidate that
// goes through the gate. Every wait is on a journal event, never on time.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../src/core/journal/journalEvents';
import { startLiveMode, type LiveMode } from '../src/run/live/liveMode';
import { sessionIdOf } from '../src/run/live/sessionExclusion';
import { liveHolder } from '../src/run/runFolder';
import { askLiveRun, startControlServer } from '../src/surfaces/control/controlServer';
import { journaled } from './helpers/journaled';
import { openClawRlHeaders, ScriptedConversation } from './helpers/scriptedConversation';
import { gatelabCli, repoRoot, writeTestRecipe } from './helpers/testRecipe';

type SessionCompleted = Extract<JournalEvent, { type: 'session-completed' }>;

// What a user says after each reply, in the scripted student's words the rule judge reads:
// a complaint with hindsight (−1, a hint), a save request (+1), then done (+1).
const USER_TURNS = [
  'What is 12 + 30? Show your work.',
  'This looks too AI-written. Write it as plain sentences, without bold or lists.',
  'Great, that looks right. Please append the answers to homework/3.txt.',
  'HOMEWORK_DONE',
];

describe('live mode: an outside client’s conversations become judged sessions that train behind the gate', () => {
  let root: string;
  let live: LiveMode;
  let control: { close(): Promise<void> };
  let events: JournalEvent[];
  let excludedId: string;
  let decided: JournalEvent | undefined;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-live-'));
    const recipe = await writeTestRecipe(root, { maxTokens: 24, batchTurns: 4, windowTurns: 4, probeProblems: 2, probeMaxTokens: 48, confirm: 'manual' });
    live = await startLiveMode(recipe, path.join(root, 'run'), { idleSeconds: 3600 });
    control = await startControlServer(live.run);
    const { journal } = live.run;
    const client = new OpenAI({ baseURL: live.endpoint.baseUrl, apiKey: live.endpoint.token, maxRetries: 0 });
    const { model } = live.endpoint;

    // 1. OpenClaw-RL's headers; the last request says the session is done, which journals it.
    const headered = new ScriptedConversation(client, model, USER_TURNS, openClawRlHeaders('rl-1'));
    for (let turn = 0; turn < USER_TURNS.length; turn++) await headered.say(turn);
    const first = await journaled(journal, (e): e is SessionCompleted => e.type === 'session-completed');
    // Its three judged turns wait for a fourth: the person excludes it before it trains.
    expect(first.samples.count).toBe(3);
    excludedId = sessionIdOf(live.run.runId, first.session);
    // As `gatelab exclude` does from another process: through the control endpoint.
    expect(await askLiveRun(live.run.runDir, { action: 'exclude', session: first.session, reason: 'my data' })).toEqual({
      result: { session: first.session, trainedIn: [] },
    });

    // 2 and 3, interleaved: OpenClaw's affinity header, and nothing at all (the message prefix).
    const affinity = new ScriptedConversation(client, model, USER_TURNS, (turn) => ({ 'x-client-request-id': `claw-7:${turn}` }));
    const bare = new ScriptedConversation(client, model, USER_TURNS, () => ({}));
    for (let turn = 0; turn < USER_TURNS.length; turn++) {
      await affinity.say(turn);
      await bare.say(turn);
    }
    await live.sessions.closeAll();
    // Six included judged turns: one step of four, its candidate through the gate to a person.
    const verdict = await journaled(
      journal,
      (e): e is Extract<JournalEvent, { type: 'candidate-awaiting-confirm' | 'candidate-rejected' }> =>
        e.type === 'candidate-awaiting-confirm' || e.type === 'candidate-rejected',
    );
    // A person confirms it as `gatelab confirm` does (the gate may also have rejected it on its probes).
    if (verdict.type === 'candidate-awaiting-confirm') {
      await askLiveRun(live.run.runDir, { action: 'confirm', id: verdict.id });
      decided = await journaled(journal, (e): e is Extract<JournalEvent, { type: 'candidate-promoted' }> => e.type === 'candidate-promoted');
    } else decided = verdict;
    events = [...journal.events];
  }, 900_000);

  afterAll(async () => {
    await control?.close();
    await live?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('journals each conversation as one session, recognised the way its client allowed', async () => {
    const sessions = events.filter((e): e is SessionCompleted => e.type === 'session-completed');
    expect(sessions.map((e) => e.taskId)).toEqual(['live:header:rl-1', 'live:affinity:claw-7', 'live:conversation-1']);
    for (const e of sessions) {
      expect(e.turns).toBe(USER_TURNS.length);
      const transcript = JSON.parse(await readFile(path.join(live.run.runDir, e.transcript), 'utf8')) as {
        turns: { nextState: string | null; judgment: { score: number } | null; skipped?: string }[];
      };
      // Each reply judged by the user's next message; the last one has none and does not train.
      expect(transcript.turns.map((t) => t.judgment?.score ?? null)).toEqual([-1, 1, 1, null]);
      expect(transcript.turns.map((t) => t.nextState)).toEqual([...USER_TURNS.slice(1), null]);
      expect(transcript.turns.at(-1)?.skipped).toMatch(/no next state/);
      expect(e.samples.count).toBe(3);
    }
  });

  it('never gives the trainer the excluded session’s turns, and trains the others into a candidate the gate decides on', () => {
    expect(events.find((e) => e.type === 'session-excluded')).toMatchObject({ session: 0, trainedIn: [] });
    const steps = events.filter((e): e is Extract<JournalEvent, { type: 'trainer-step' }> => e.type === 'trainer-step');
    expect(steps.length).toBeGreaterThanOrEqual(1);
    for (const step of steps) expect(step.sessionIds).not.toContain(excludedId);
    expect(steps[0]!.sessionIds).toEqual([sessionIdOf(live.run.runId, 1), sessionIdOf(live.run.runId, 2)]);
    const staged = events.find((e) => e.type === 'candidate-staged');
    expect(staged).toMatchObject({ source: { kind: 'trainer', step: 1 } });
    expect(events.some((e) => e.type === 'probe-round' || e.type === 'candidate-rejected')).toBe(true);
    expect(decided?.type === 'candidate-promoted' || decided?.type === 'candidate-rejected').toBe(true);
  });
});

/** A process's children: the engine and trainer workers of a live process, and the lab's process-group watcher (`node -e`). */
function childProcesses(pid: number): { pid: number; args: string }[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => /^\s*(\d+)\s+(.*)$/.exec(l))
      .flatMap((m) => (m ? [{ pid: Number(m[1]), args: m[2]! }] : []));
  } catch {
    return [];
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('gatelab live and gatelab exclude, as a person runs them', () => {
  let root: string;
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('prints the base URL, token and model; serves a conversation; excludes it from another process; stops on Ctrl-C leaving no process behind', async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-live-cli-'));
    const recipe = await writeTestRecipe(root, { maxTokens: 16, batchTurns: 16, probeProblems: 2 });
    const runDir = path.join(root, 'run');
    const child = spawn(process.execPath, ['--import', 'tsx', gatelabCli, 'live', '--recipe', recipe, '--out', runDir], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Ready once the model line is printed (the last of the three).
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (/model: +\S+/.test(stdout)) resolve();
      });
      void exited.then((code) => reject(new Error(`gatelab live exited (${code}): ${stderr}`)));
    });
    const baseUrl = /base URL: +(\S+)/.exec(stdout)![1]!;
    const token = /API key: +(\S+)/.exec(stdout)![1]!;
    const model = /model: +(\S+)/.exec(stdout)![1]!;
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const client = new OpenAI({ baseURL: baseUrl, apiKey: token, maxRetries: 0 });
    const talk = new ScriptedConversation(client, model, USER_TURNS, openClawRlHeaders('cli-1'));
    for (let turn = 0; turn < USER_TURNS.length; turn++) await talk.say(turn);

    // The session is journaled by the live process; wait for it through the status endpoint's view of the journal.
    for (;;) {
      const journal = await readFile(path.join(runDir, 'journal.jsonl'), 'utf8');
      if (journal.includes('"type":"session-completed"')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const exclude = spawn(process.execPath, ['--import', 'tsx', gatelabCli, 'exclude', '--run', runDir, '--session', '0'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let excludeOut = '';
    exclude.stdout.on('data', (d: Buffer) => (excludeOut += d.toString()));
    expect(await new Promise((resolve) => exclude.once('exit', resolve))).toBe(0);
    expect(excludeOut).toContain('session 0 excluded from training');

    const children = childProcesses(child.pid!);
    // Two engines and the trainer (and the lab's process-group watcher).
    expect(children.filter((c) => c.args.includes('/backends/embedded/')).length).toBe(3);
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(0);
    // Every worker was shut down and waited for before the lab exited.
    // Nothing it started outlives it: the workers are stopped in order, and the group watcher, whose
    // work is what a killed lab leaves behind, exits once it sees the lab gone. Waited on, not timed.
    while (children.some((c) => alive(c.pid))) await new Promise((r) => setTimeout(r, 100));
    expect(await liveHolder(runDir)).toBeUndefined();
    const journal = await readFile(path.join(runDir, 'journal.jsonl'), 'utf8');
    expect(journal).toContain('"type":"session-excluded"');

    // A live run is continued by live mode, never by `gatelab resume` (it would run the recipe's tasks).
    const resume = spawn(process.execPath, ['--import', 'tsx', gatelabCli, 'resume', '--run', runDir], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let resumeErr = '';
    resume.stderr.on('data', (d: Buffer) => (resumeErr += d.toString()));
    expect(await new Promise((resolve) => resume.once('exit', resolve))).toBe(1);
    expect(resumeErr).toContain(`gatelab live --run ${runDir}`);
    expect(await readFile(path.join(runDir, 'journal.jsonl'), 'utf8')).not.toContain('"taskId":"hw-');
  }, 600_000);
});
