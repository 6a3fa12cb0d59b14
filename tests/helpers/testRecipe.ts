// A shorter variant of the embedded recipe for integration tests: the same
// model, tasks, judge, trainer and gate, with fewer sessions, shorter replies
// and a smaller probe set so a real run fits in a test's time. Written as
// YAML and loaded through the real recipe loader.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const embeddedRecipe = path.join(repoRoot, 'recipes', 'embedded-gsm8k-style.yaml');
export const gatelabCli = path.join(repoRoot, 'src', 'surfaces', 'cli', 'cliMain.ts');

export type TestRecipeOptions = {
  sessions?: number;
  maxTurns?: number;
  maxTokens?: number;
  batchTurns?: number;
  windowTurns?: number;
  probeProblems?: number;
  probeMaxTokens?: number;
  confirm?: 'auto' | 'manual';
  floors?: { gold_rate: number; answered_rate: number };
  margins?: { pass_rate: number; gold_rate: number; answered_rate: number; mean_violations: number };
  lr?: number;
  /** The recipe's `student` section (default: scripted). */
  student?: Record<string, unknown>;
  /** The recipe's `policy` section in place of the embedded one, and the trainer's kind (a test's own backend). */
  policy?: Record<string, unknown>;
  trainerKind?: string;
};

export async function writeTestRecipe(dir: string, o: TestRecipeOptions = {}): Promise<string> {
  const doc = parseDocument(await readFile(embeddedRecipe, 'utf8'));
  const set = (p: (string | number)[], v: unknown) => doc.setIn(p, v);
  set(['name'], 'embedded-test');
  set(['policy', 'model_dir'], path.join(repoRoot, 'assets', 'models', 'policy'));
  set(['tasks', 'file'], path.join(repoRoot, 'assets', 'homework', 'homework.json'));
  set(['tasks', 'probe_file'], path.join(repoRoot, 'assets', 'homework', 'probe.json'));
  if (o.sessions !== undefined) set(['tasks', 'sessions'], o.sessions);
  if (o.maxTurns !== undefined) set(['session', 'max_turns'], o.maxTurns);
  if (o.maxTokens !== undefined) set(['policy', 'sampling', 'max_tokens'], o.maxTokens);
  if (o.batchTurns !== undefined) set(['trainer', 'batch_turns'], o.batchTurns);
  if (o.windowTurns !== undefined) set(['trainer', 'window_turns'], o.windowTurns);
  if (o.lr !== undefined) set(['trainer', 'optimizer', 'lr'], o.lr);
  if (o.probeProblems !== undefined) set(['gate', 'probe', 'problems'], o.probeProblems);
  if (o.probeMaxTokens !== undefined) set(['gate', 'probe', 'sampling', 'max_tokens'], o.probeMaxTokens);
  if (o.confirm !== undefined) set(['gate', 'confirm'], o.confirm);
  if (o.floors !== undefined) set(['gate', 'floors'], o.floors);
  if (o.margins !== undefined) set(['gate', 'margins'], o.margins);
  if (o.student !== undefined) set(['student'], o.student);
  if (o.policy !== undefined) set(['policy'], o.policy);
  if (o.trainerKind !== undefined) set(['trainer', 'kind'], o.trainerKind);
  const file = path.join(dir, 'recipe.yaml');
  await writeFile(file, doc.toString());
  return file;
}
