// The Reef reference reads consistently: its title names its model, and what
// it says of itself (sessions, accepted sessions, gate decisions, the best
// rate its gate selected) is what its files hold; the published result it is
// compared with is named as the different run it is.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REFERENCE_ID, REPO_ASSETS_DIR } from '../contract/testing/contractSuite';
import { createReferenceLibrary } from './referenceRuns';

describe('the shipped Reef reference', () => {
  const library = createReferenceLibrary(join(REPO_ASSETS_DIR, 'reference'));

  test('its title, model and description agree with each other and with its files', async () => {
    const { runs } = await library.list();
    const info = runs.find((r) => r.id === REFERENCE_ID)!;
    const run = await library.open(REFERENCE_ID);
    expect(info.title).toContain(info.model);
    expect(info.title).toContain(info.date);
    expect(info.title).toContain(info.gated ? 'gated' : 'no gate');
    expect(info.description).toContain(info.model);
    expect(info.description).toContain(`${run.summary.sessionCount} sessions`);
    expect(info.description).toContain(`${run.gate?.steps.length} gate decisions`);
    expect(run.summary.title).toBe(info.title);
  });

  test('its outcome says why adaptation is not reached, with the numbers in its files', async () => {
    const info = (await library.list()).runs.find((r) => r.id === REFERENCE_ID)!;
    const run = await library.open(REFERENCE_ID);
    const accepted = run.sessions.filter((s) => s.accept === 1).map((s) => s.session);
    const steps = run.gate!.steps;
    expect(run.summary.adaptationSession).toBeNull();
    expect(info.outcome).toMatch(/never reaches three accepted sessions in a row/);
    expect(info.outcome).toContain(`${accepted.length} of its ${run.summary.sessionCount} sessions are accepted (${accepted.join(' and ')})`);
    expect(info.outcome).toContain(`selected ${steps.filter((s) => s.outcome === 'select').length} of ${steps.length} candidates`);
    expect(info.outcome).toContain(`never above ${Math.max(...steps.map((s) => s.best ?? 0)) * 100}%`);
  });

  test('the published result names its own recipe and model, and that it is not this run', async () => {
    const { published, runs } = await library.list();
    const info = runs.find((r) => r.id === REFERENCE_ID)!;
    expect(published).toMatchObject({ adaptationSession: 14, curveSessions: 36, recipe: 'openclawrl', model: 'Qwen3-4B-Thinking-2507', gated: false });
    expect(published.model).not.toBe(info.model);
    expect(published.label).toContain(`@${published.adaptationSession}`);
    expect(published.label).toContain('Qwen3-4B');
    expect(published.source).toContain(published.model);
    expect(published.source).toContain(`different run from the gated ${info.model} reference`);
  });
});
