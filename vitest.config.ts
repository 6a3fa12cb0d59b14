import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'tools/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}', 'scripts/**/*.test.ts', 'tests/**/*.test.ts', 'bench/**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**', 'e2e/**'],
    environment: 'node',
    // Type-level tests (*.test-d.ts) run through tsc and count as tests.
    typecheck: {
      enabled: true,
      include: ['src/**/*.test-d.ts', 'renderer/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
      // Errors in source files are `npm run typecheck`'s job; here only the
      // type-level tests themselves decide pass or fail.
      ignoreSourceErrors: true,
    },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
