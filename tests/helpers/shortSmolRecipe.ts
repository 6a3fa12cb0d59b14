// A SmolLM2 recipe (recipes/smollm2-135m-*.yaml) shortened for CI: the same engines,
// trainer and gate, with replies, batches and probe rounds small enough that a
// session takes a minute or two on two cores. Tests that run SmolLM2 start
// from this and set what is theirs (sessions, runner, margins).
import path from 'node:path';
import type { Document } from 'yaml';
import { repoRoot } from './testRecipe';

export function shortenSmolRecipe(doc: Document, sessions: number): void {
  // The recipe's own task files, made absolute: the shortened copy is written elsewhere.
  for (const key of ['file', 'probe_file']) doc.setIn(['tasks', key], path.resolve(repoRoot, 'recipes', String(doc.getIn(['tasks', key]))));
  doc.setIn(['tasks', 'sessions'], sessions);
  doc.setIn(['session', 'max_turns'], 3);
  doc.setIn(['policy', 'sampling', 'max_tokens'], 64);
  doc.setIn(['trainer', 'batch_turns'], 2);
  doc.setIn(['trainer', 'window_turns'], 2);
  doc.setIn(['gate', 'probe', 'problems'], 2);
  doc.setIn(['gate', 'probe', 'sampling', 'max_tokens'], 64);
  doc.setIn(['gate', 'confirm'], 'auto');
}
