// ESLint flat config: typescript-eslint's recommended rules everywhere,
// react-hooks' recommended rules for the renderer, and eslint-config-prettier
// last so that no stylistic rule fights Prettier (which owns formatting).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    // What .gitignore leaves out (ESLint does not read it): build outputs, runs, test artefacts.
    ignores: ['dist/', 'release/', 'out/', 'runs/', 'tmp/', 'test-results/', 'playwright-report/', 'bench/results/', 'e2e/screenshots/', '**/.venv/'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    rules: {
      // A leading underscore marks a name bound on purpose and left unused: the fields a
      // rest pattern drops (`const { out: _out, ...rest } = r`) and parameters an interface requires.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
      // A `let` read by a closure before its one assignment (a callback handed to the object
      // that the assignment creates) cannot be a `const` declared later.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Playwright reads a fixture's dependencies from its first parameter's pattern: a fixture with none must write `{}`.
    files: ['e2e/**/*.ts'],
    rules: { 'no-empty-pattern': 'off' },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  prettier,
);
