import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDerivedRecipe } from '../../src/lab/testing/preparedRun';
import { REPO_ROOT } from '../paths';

/**
 * The embedded recipe as the specs' prepared runs use it (prepareAwaitingConfirmRun):
 * 4 probe problems and the floors lifted, so no-op candidates pass their rounds.
 */
export function writePreparedEmbeddedRecipe(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'gatelab-e2e-recipe-')).then((dir) =>
    writeDerivedRecipe(join(REPO_ROOT, 'recipes', 'embedded-gsm8k-style.yaml'), dir, {
      name: 'embedded-prepared',
      probeProblems: 4,
      floors: { gold_rate: 0, answered_rate: 0 },
    }),
  );
}
