import { describe, expect, it } from 'vitest';
import { ArithmeticError, evaluate } from './arithmetic';

describe('evaluate', () => {
  it('follows precedence and parentheses', () => {
    expect(evaluate('2 + 3 * 4')).toBe(14);
    expect(evaluate('(2 + 3) * 4')).toBe(20);
    expect(evaluate('48 / 2 + 48')).toBe(72);
    expect(evaluate('10 - 4 - 3')).toBe(3);
  });
  it('reads thousands commas, decimals and the × ÷ signs', () => {
    expect(evaluate('1,200 × 3')).toBe(3600);
    expect(evaluate('7.5 ÷ 2.5')).toBe(3);
  });
  it('rejects bad input and division by zero', () => {
    expect(() => evaluate('4 / 0')).toThrow(ArithmeticError);
    expect(() => evaluate('4 +')).toThrow(ArithmeticError);
    expect(() => evaluate('4 apples')).toThrow(ArithmeticError);
    expect(() => evaluate('(4 + 1')).toThrow(ArithmeticError);
    expect(() => evaluate('')).toThrow(ArithmeticError);
  });
});
