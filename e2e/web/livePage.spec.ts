// The Live page end to end, in a real browser against the real lab on the
// embedded recipe (shortened: short replies, a trainer step per four judged
// turns, two probe problems, margins no short run can miss): live mode is
// started from the page, the endpoint read off it, and the official `openai`
// client talks to the gateway as an outside agent would. Sessions appear
// with their judged turns; one is excluded from the page (the journal has the
// event, and no trainer step lists it), and an open conversation is excluded
// before it is even journaled; a candidate reaches the gate panel and
// the top bar's waiting count; a person confirms it; Stop journals the open
// conversation. Every wait is on the page's state or the journal, never a sleep.
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { expect, test } from '@playwright/test';
import { openClawRlHeaders, ScriptedConversation } from '../../tests/helpers/scriptedConversation';
import { writeTestRecipe } from '../../tests/helpers/testRecipe';
import { startBrowserMode, type BrowserMode } from './browserMode';
import { clippedElements, shootBothThemes, SMALL_WINDOW } from './screens';
import { watchConsole } from './watchConsole';

// The scripted student's words, which the rule PRM and hint judge read: a complaint (−1, a hint), a save request (+1), done (+1).
const QUESTION = 'What is 12 + 30? Show your work.';
const COMPLAINT = 'This looks too AI-written. Write it as plain sentences, without bold or lists.';
const SAVE = 'Great, that looks right. Please append the answers to homework/3.txt.';
const DONE = 'HOMEWORK_DONE';
/** Three judged replies (−1, +1, +1) and a last one with no next state. */
const SHORT = [QUESTION, COMPLAINT, SAVE, DONE];
/** Four judged replies: one trainer step's batch on its own. */
const LONG = [QUESTION, COMPLAINT, COMPLAINT, SAVE, DONE];

type JournalLine = { type: string; session?: number; sessionIds?: string[]; taskId?: string; runId?: string };

async function journal(runsDir: string, runId: string): Promise<JournalLine[]> {
  const text = await readFile(join(runsDir, runId, 'journal.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as JournalLine);
}

/** Stops browser mode (its live run journals what is open and lets its processes go) and waits for it to exit. */
async function stopLab(lab: BrowserMode): Promise<void> {
  if (lab.child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => lab.child.once('exit', () => resolve()));
  lab.child.kill('SIGTERM');
  await exited;
}

const headered = openClawRlHeaders;

test.describe.configure({ mode: 'serial' });

test.describe('the Live page in browser mode (Chromium), on the embedded recipe', () => {
  let lab: BrowserMode;
  let runsDir: string;
  let recipesDir: string;

  const labEnv = () => ({ GATELAB_RUNS_DIR: runsDir, GATELAB_RECIPES_DIR: recipesDir });

  test.beforeAll(async () => {
    runsDir = await mkdtemp(join(tmpdir(), 'gatelab-e2e-live-runs-'));
    recipesDir = await mkdtemp(join(tmpdir(), 'gatelab-e2e-live-recipes-'));
    await writeTestRecipe(recipesDir, {
      maxTokens: 24,
      // One step per four judged turns: the first session's three wait for the person to exclude them (no step can take them first).
      batchTurns: 4,
      windowTurns: 4,
      probeProblems: 2,
      probeMaxTokens: 48,
      confirm: 'manual',
      // The gate's rules stay; its limits are set so a real but tiny step cannot fail them here.
      floors: { gold_rate: 0, answered_rate: 0 },
      margins: { pass_rate: 1, gold_rate: 1, answered_rate: 1, mean_violations: 100 },
    });
    lab = await startBrowserMode(labEnv());
  });

  test.afterAll(async () => {
    await stopLab(lab);
    await rm(runsDir, { recursive: true, force: true });
    await rm(recipesDir, { recursive: true, force: true });
  });

  test('start live mode, point the openai client at it, watch sessions come and be judged, exclude one, confirm a candidate, stop', async ({ page }) => {
    test.setTimeout(12 * 60_000);
    const problems = watchConsole(page);
    await page.setViewportSize(SMALL_WINDOW);
    await page.goto(lab.url);
    await page.getByTestId('tab-live').click();
    await expect(page.getByTestId('live-start')).toBeVisible();
    await page.getByTestId('live-recipe-embedded-test').locator('input').check();
    await shootBothThemes(page, 'web-live-start');
    await page.getByTestId('live-start-button').click();

    const view = page.getByTestId('live-view');
    await expect(view).toBeVisible();
    await expect(page.getByTestId('live-phase')).toHaveAttribute('data-phase', 'running', { timeout: 5 * 60_000 });
    const runId = (await view.getAttribute('data-run-id'))!;

    // The endpoint, read off the page: the token masked until revealed.
    const token = page.getByTestId('live-token');
    await expect(token).toHaveAttribute('data-revealed', 'no');
    await expect(page.getByTestId('reveal-token')).toBeEnabled();
    const baseUrl = (await page.getByTestId('live-base-url').textContent())!;
    const model = (await page.getByTestId('live-model').textContent())!;
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(await page.getByTestId('live-snippet-openclaw').textContent()).not.toContain('Bearer');
    await page.getByTestId('reveal-token').click();
    await expect(token).toHaveAttribute('data-revealed', 'yes');
    const apiKey = (await token.textContent())!;
    expect(apiKey.length).toBeGreaterThanOrEqual(16);
    expect(await page.getByTestId('live-snippet-openclaw').textContent()).toContain(apiKey);
    await page.getByTestId('reveal-token').click();
    await expect(token).toHaveAttribute('data-revealed', 'no');
    expect(await token.textContent()).not.toContain(apiKey);

    const client = new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 0 });
    // 1. OpenClaw-RL's headers: an open conversation as it goes, a journaled session once done.
    const first = new ScriptedConversation(client, model, SHORT, headered('rl-1'));
    await first.say(0);
    await expect(page.getByTestId('open-header:rl-1')).toHaveAttribute('data-turns', '1');
    for (let turn = 1; turn < SHORT.length; turn++) await first.say(turn);
    const session0 = page.getByTestId('live-session-0');
    await expect(session0).toHaveAttribute('data-name', 'header:rl-1');
    await expect(session0).toHaveAttribute('data-samples', '3');
    await expect(page.getByTestId('open-header:rl-1')).toHaveCount(0);

    // Its transcript: each reply judged by the user's next message; the last has none and does not train.
    await page.getByTestId('open-transcript-0').click();
    const drawer = page.getByTestId('live-transcript');
    await expect(drawer).toHaveAttribute('data-status', 'loaded');
    const judgments = drawer.getByTestId('live-turn-judgment');
    await expect(judgments).toHaveCount(4);
    expect(await judgments.evaluateAll((els) => els.map((e) => e.getAttribute('data-reward')))).toEqual(['-1', '1', '1', 'none']);
    await expect(judgments.nth(3)).toContainText('no next state');
    await expect(drawer).toContainText(COMPLAINT);
    await shootBothThemes(page, 'web-live-transcript');
    await page.getByTestId('live-transcript-close').click();

    // 2. Excluded from the page, with a reason: the journal has the event.
    await page.getByTestId('exclude-0').click();
    await page.getByTestId('exclude-reason-0').fill('my private data');
    await page.getByTestId('exclude-yes-0').click();
    await expect(session0).toHaveAttribute('data-excluded', 'yes');
    await expect(page.getByTestId('excluded-0')).toContainText('my private data');
    expect((await journal(runsDir, runId)).filter((e) => e.type === 'session-excluded')).toMatchObject([{ session: 0 }]);

    // 3. A second conversation's four judged turns make a step; a third (the message prefix alone) stays open.
    const second = new ScriptedConversation(client, model, LONG, headered('rl-2'));
    for (let turn = 0; turn < LONG.length; turn++) await second.say(turn);
    await expect(page.getByTestId('live-session-1')).toHaveAttribute('data-samples', '4');
    const third = new ScriptedConversation(client, model, SHORT, () => ({}));
    await third.say(0);
    await third.say(1);
    await expect(page.getByTestId('open-conversation-1')).toHaveAttribute('data-judged', '1');
    // Excluded while still open: it goes on, and is excluded the moment it is journaled.
    await page.getByTestId('exclude-conversation-1').click();
    await page.getByTestId('exclude-yes-conversation-1').click();
    await expect(page.getByTestId('open-training-conversation-1')).toContainText('excluded');

    // A candidate from the trainer's step reaches the gate and a person: the gate panel and the top bar's count.
    const candidate = page.getByTestId('candidate-c1');
    await expect(candidate.getByTestId('candidate-state')).toHaveText('awaiting confirmation', { timeout: 6 * 60_000 });
    await expect(page.getByTestId('awaiting-count')).toHaveAttribute('data-count', '1');
    await expect(page.getByTestId('live-tab-badge')).toHaveText('⚑ 1');
    await expect(page.getByTestId('trained-in-1')).toContainText('step 1');
    await expect(page.getByTestId('trained-in-0')).toHaveText('never (excluded)');
    const runIdOf = (await journal(runsDir, runId)).find((e) => e.type === 'run-started')!.runId!;
    const steps = (await journal(runsDir, runId)).filter((e) => e.type === 'trainer-step');
    expect(steps.length).toBeGreaterThanOrEqual(1);
    for (const step of steps) expect(step.sessionIds).not.toContain(`${runIdOf}/session-0`);

    expect(await clippedElements(page)).toEqual([]);
    await page.locator('main.main').evaluate((main) => main.scrollTo(0, 0));
    await shootBothThemes(page, 'web-live-serving');
    await page.getByTestId('live-sessions').scrollIntoViewIfNeeded();
    await shootBothThemes(page, 'web-live-sessions');
    await candidate.scrollIntoViewIfNeeded();
    await shootBothThemes(page, 'web-live-gate');

    await candidate.getByTestId('confirm-button').click();
    await expect(candidate.getByTestId('candidate-state')).toHaveText('promoted', { timeout: 3 * 60_000 });
    await expect(page.getByTestId('awaiting-count')).toHaveCount(0);

    // Stop: the open conversation is journaled, every process let go; Continue is offered.
    await page.getByTestId('live-stop').click();
    await expect(page.getByTestId('live-phase')).toHaveAttribute('data-phase', 'stopped', { timeout: 3 * 60_000 });
    await expect(page.getByTestId('live-session-2')).toHaveAttribute('data-name', 'conversation-1');
    await expect(page.getByTestId('live-session-2')).toHaveAttribute('data-excluded', 'yes');
    await expect(page.getByTestId('excluded-2')).toContainText('excluded by a person in the desktop');
    await expect(page.getByTestId('live-continue')).toBeVisible();
    await expect(page.getByTestId('live-not-serving')).toBeVisible();
    const events = await journal(runsDir, runId);
    expect(events.filter((e) => e.type === 'session-completed').map((e) => e.taskId)).toEqual(['live:header:rl-1', 'live:header:rl-2', 'live:conversation-1']);
    expect(events.filter((e) => e.type === 'session-excluded').map((e) => e.session)).toEqual([0, 2]);
    for (const step of events.filter((e) => e.type === 'trainer-step')) {
      expect(step.sessionIds).not.toContain(`${runIdOf}/session-0`);
      expect(step.sessionIds).not.toContain(`${runIdOf}/session-2`);
    }
    expect(await clippedElements(page)).toEqual([]);
    await page.locator('main.main').evaluate((main) => main.scrollTo(0, 0));
    await shootBothThemes(page, 'web-live-stopped');

    // The journal is the truth: the page reads the same after a reload…
    await page.reload();
    await expect(page.getByTestId('live-view')).toBeVisible();
    await expect(page.getByTestId('live-session-0')).toHaveAttribute('data-excluded', 'yes');

    // …and after the lab restarts: the live run is listed on the Live page, and continues where its journal ends.
    expect(problems).toEqual([]);
    // The page leaves first: a page left open on a lab that goes away rightly reports its lost connection.
    await page.goto('about:blank');
    await stopLab(lab);
    lab = await startBrowserMode(labEnv());
    await page.goto(lab.url);
    await page.getByTestId('tab-live').click();
    await page.getByTestId(`live-continue-${runId}`).click();
    await expect(page.getByTestId('live-phase')).toHaveAttribute('data-phase', 'running', { timeout: 5 * 60_000 });
    await expect(page.getByTestId('live-session-0')).toHaveAttribute('data-excluded', 'yes');
    await expect(page.getByTestId('candidate-c1').getByTestId('candidate-state')).toHaveText('promoted');
    // A new start of live mode: its own port and token.
    const again = (await page.getByTestId('live-base-url').textContent())!;
    expect(again).not.toBe(baseUrl);
    await page.getByTestId('reveal-token').click();
    await expect(token).toHaveAttribute('data-revealed', 'yes');
    const newKey = (await token.textContent())!;
    expect(newKey).not.toBe(apiKey);
    await new ScriptedConversation(new OpenAI({ baseURL: again, apiKey: newKey, maxRetries: 0 }), model, [QUESTION], headered('rl-3')).say(0);
    await expect(page.getByTestId('live-session-3')).toHaveAttribute('data-name', 'header:rl-3');
    await page.getByTestId('live-stop').click();
    await expect(page.getByTestId('live-phase')).toHaveAttribute('data-phase', 'stopped', { timeout: 3 * 60_000 });
    expect(problems).toEqual([]);
  });
});
