import { describe, expect, it } from 'vitest';
import { calculatorCompletion, evaluateExpression, expressionSuffix, formatResult } from './calculator';

describe('expressionSuffix', () => {
  it('takes the longest arithmetic suffix', () => {
    expect(expressionSuffix('She buys 12 + 3 ')).toBe('12 + 3');
    expect(expressionSuffix('So (4 + 5) × 2')).toBe('(4 + 5) × 2');
    expect(expressionSuffix('Total: 1,234.5 - 34')).toBe('1,234.5 - 34');
  });
  it('stops at a word, a colon or a malformed number', () => {
    expect(expressionSuffix('Step 2. 12 + 3')).toBe('12 + 3');
    expect(expressionSuffix('she has 12,34 * 2')).toBe('34 * 2');
    expect(expressionSuffix('no maths here')).toBe('');
  });
  it('is linear on long digit runs (no regex backtracking)', () => {
    const text = `${'1'.repeat(20000)}x 2 + 2`;
    expect(expressionSuffix(text)).toBe('2 + 2');
  });
});

describe('evaluateExpression', () => {
  it('respects precedence and parentheses', () => {
    expect(evaluateExpression('2 + 3 * 4')).toBe(14);
    expect(evaluateExpression('(2 + 3) * 4')).toBe(20);
    expect(evaluateExpression('48 ÷ 2 × 3')).toBe(72);
    expect(evaluateExpression('10 - 4 - 3')).toBe(3);
    expect(evaluateExpression('1,200 / 4')).toBe(300);
  });
  it('refuses what it cannot parse, and division by zero', () => {
    expect(evaluateExpression('5 / 0')).toBeNull();
    expect(evaluateExpression('(2 + 3')).toBeNull();
    expect(evaluateExpression('- 3')).toBeNull();
    expect(evaluateExpression('2 +')).toBeNull();
    expect(evaluateExpression('3 4')).toBeNull();
    expect(evaluateExpression('')).toBeNull();
  });
});

describe('formatResult', () => {
  it('prints integers plainly and other values to at most 4 decimals', () => {
    expect(formatResult(1200)).toBe('1200');
    expect(formatResult(7.5)).toBe('7.5');
    expect(formatResult(1 / 3)).toBe('0.3333');
    expect(formatResult((7 / 3) * 3)).toBe('7');
    expect(formatResult(0.1 + 0.2)).toBe('0.3');
    expect(formatResult(-0.00001)).toBe('0');
    expect(formatResult(Number.NaN)).toBeNull();
  });
});

describe('calculatorCompletion', () => {
  it('forces " " + result after the expression', () => {
    expect(calculatorCompletion('Half of 48 is 48 / 2 ')).toBe(' 24');
    expect(calculatorCompletion('so 3 × 4 + 1')).toBe(' 13');
  });
  it('forces nothing for an unparsable expression or no expression', () => {
    expect(calculatorCompletion('the answer ')).toBeNull();
    expect(calculatorCompletion('costs (12 + 3')).toBeNull();
    expect(calculatorCompletion('9 / 0')).toBeNull();
  });
});
