// Parsing what an LLM judge writes. The texts below are written in the shapes
// judge models produce (a thinking model's draft then answer, a terse answer,
// several boxed values, a cut-off reply); they are not outputs of a
// particular model.

import { describe, expect, it } from 'vitest';
import { hintMessages, parseHintVote, parsePrmVote, prmMessages } from './llmPrompts';

describe('parsePrmVote', () => {
  it.each([
    ['terse positive', '\\boxed{1}', 1],
    ['terse negative', 'The user asks for a redo.\n\\boxed{-1}', -1],
    ['neutral', 'No clear signal.\n\n\\boxed{0}', 0],
    ['explicit plus sign', 'Progress. \\boxed{+1}', 1],
    ['spaces inside the braces', '\\boxed{ -1 }', -1],
    ['the last boxed score counts', 'At first I thought \\boxed{1}, but the user complains. Final: \\boxed{-1}', -1],
    [
      'a thinking draft is ignored, the answer after </think> counts',
      '<think>Maybe \\boxed{1}? No: the user says it looks AI-written and wants a redo.</think>\nThe output was rejected.\n\\boxed{-1}',
      -1,
    ],
    ['no boxed score', 'The user seems unhappy, so the answer is bad.', null],
    ['out of range', '\\boxed{2}', null],
    ['not an integer', '\\boxed{good}', null],
    ['cut off while thinking (max_tokens)', '<think>The user asks to append the answers, that is progress, so \\boxed{1}', null],
    ['a score only inside the thinking part', '<think>\\boxed{1}</think>I am not sure.', null],
    ['empty text', '', null],
  ])('%s', (_name, text, want) => {
    expect(parsePrmVote(text)).toBe(want);
  });
});

describe('parseHintVote', () => {
  it.each([
    [
      'positive decision with a hint',
      'The student wants plain sentences.\n\\boxed{1}\n[HINT_START]Write the solution in plain sentences without bold or numbered steps, and keep every calculation.[HINT_END]',
      { decision: 1, hint: 'Write the solution in plain sentences without bold or numbered steps, and keep every calculation.' },
    ],
    ['hint before the decision', '[HINT_START] Show each step. [HINT_END] \\boxed{1}', { decision: 1, hint: 'Show each step.' }],
    ['multi-line hint', '\\boxed{1}[HINT_START]Drop the bold.\nKeep every step.[HINT_END]', { decision: 1, hint: 'Drop the bold.\nKeep every step.' }],
    ['the last hint block counts', '[HINT_START]first[HINT_END] then [HINT_START]second hint[HINT_END] \\boxed{1}', { decision: 1, hint: 'second hint' }],
    ['negative decision', 'Nothing to learn here. \\boxed{-1}', { decision: -1, hint: null }],
    ['neutral is not a hint decision', '\\boxed{0} [HINT_START]something[HINT_END]', { decision: null, hint: 'something' }],
    ['an unclosed hint block is no hint', '\\boxed{1} [HINT_START]Write plain sentences', { decision: 1, hint: null }],
    ['an empty hint block is no hint', '\\boxed{1} [HINT_START]   [HINT_END]', { decision: 1, hint: null }],
    ['hint drafted while thinking is ignored', '<think>[HINT_START]draft[HINT_END] \\boxed{1}</think>\\boxed{-1}', { decision: -1, hint: null }],
  ])('%s', (_name, text, want) => {
    expect(parseHintVote(text)).toEqual(want);
  });
});

describe('prompts', () => {
  it('show the judge only the assistant output and the next state, and ask for the protocol', () => {
    const prm = prmMessages('OUTPUT-TEXT', 'NEXT-STATE-TEXT');
    expect(prm.map((m) => m.role)).toEqual(['system', 'user']);
    expect(prm[1]?.content).toContain('OUTPUT-TEXT');
    expect(prm[1]?.content).toContain('NEXT-STATE-TEXT');
    for (const v of ['\\boxed{1}', '\\boxed{-1}', '\\boxed{0}']) expect(prm[0]?.content).toContain(v);

    const hint = hintMessages('OUTPUT-TEXT', 'NEXT-STATE-TEXT');
    expect(hint[1]?.content).toContain('NEXT-STATE-TEXT');
    for (const v of ['\\boxed{1}', '\\boxed{-1}', '[HINT_START]', '[HINT_END]', 'one to three sentences']) expect(hint[0]?.content).toContain(v);
  });
});
