import { describe, expect, test, vi } from 'vitest';
import type { RecipeChoice } from '../../../src/contract/labRuns';

// The store module reaches for the lab on load; the form parser under test does not.
vi.mock('../api/labClient', () => ({ getLab: () => null, labUnavailableReason: () => '' }));
const { parseLaunchForm, parseServedContext } = await import('./launchStore');

const recipe = { id: 'embedded-gsm8k-style.yaml', sessions: 72, seed: 1 } as RecipeChoice;

describe('the start form', () => {
  test("empty fields keep the recipe's own seed and sessions", () => {
    expect(parseLaunchForm({ seed: '', sessions: ' ' }, recipe)).toEqual({});
  });

  test('whole numbers within range pass', () => {
    expect(parseLaunchForm({ seed: '0', sessions: '72' }, recipe)).toEqual({ seed: 0, sessions: 72 });
    expect(parseLaunchForm({ seed: '2147483647', sessions: '1' }, recipe)).toEqual({ seed: 2147483647, sessions: 1 });
  });

  test('anything else is refused with a reason, before a request is sent', () => {
    for (const form of [
      { seed: '-1', sessions: '' },
      { seed: '1.5', sessions: '' },
      { seed: 'abc', sessions: '' },
      { seed: '2147483648', sessions: '' },
    ]) {
      expect(parseLaunchForm(form, recipe), form.seed).toEqual({ error: expect.stringMatching(/seed/) });
    }
    for (const sessions of ['0', '73', '3.5', 'x']) {
      expect(parseLaunchForm({ seed: '', sessions }, recipe), sessions).toEqual({
        error: expect.stringMatching(/Sessions must be a whole number from 1 to 72/),
      });
    }
  });
});

describe("live mode's context field", () => {
  test("empty keeps the recipe's; a whole number of tokens is sent as maxModelLen", () => {
    expect(parseServedContext('  ')).toEqual({});
    expect(parseServedContext('8192')).toEqual({ maxModelLen: 8192 });
  });

  test('anything else is refused with a reason, before a request is sent', () => {
    for (const text of ['0', '-8', '8192.5', '8k', '1048577']) {
      expect(parseServedContext(text), text).toEqual({ error: expect.stringMatching(/whole number of tokens/) });
    }
  });
});
