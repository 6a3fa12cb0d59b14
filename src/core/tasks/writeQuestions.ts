/**
 * Writes assets/questions/questions.json and probe.json from the seeded
 * generator (src/core/tasks/questions.ts): `npx tsx src/core/tasks/writeQuestions.ts [outDir]`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildQuestionSets } from './questions';

const outDir = process.argv[2] ?? 'assets/questions';
mkdirSync(outDir, { recursive: true });
const { questions, probe } = buildQuestionSets();
for (const [name, set] of [
  ['questions.json', questions],
  ['probe.json', probe],
] as const) {
  writeFileSync(join(outDir, name), `${JSON.stringify(set, null, 1)}\n`);
  console.log(`${join(outDir, name)}: ${set.tasks.length} tasks`);
}
