import { describe, expect, test } from 'vitest';
import { parseThemeChoice, resolveTheme } from './themeStore';

describe('the theme', () => {
  test('follows the system unless the person chose one', () => {
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('system', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
  });

  test('a stored choice that is not a theme means: follow the system', () => {
    expect(parseThemeChoice('light')).toBe('light');
    expect(parseThemeChoice('dark')).toBe('dark');
    for (const stored of [null, '', 'system', 'DARK', 'blue']) expect(parseThemeChoice(stored)).toBe('system');
  });
});
