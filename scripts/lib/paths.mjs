import { fileURLToPath } from 'node:url';

/** The repository root (scripts/lib/ → ../..). */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
