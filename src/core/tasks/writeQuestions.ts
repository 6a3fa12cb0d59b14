/**
 * Writes the preference recipes' question sets from the seeded generators
 * (src/core/tasks/questions.ts): assets/questions/{questions,probe}.json (arithmetic
 * and facts) and assets/questions/topics/{questions,probe}.json (everyday topics).
 * `npx tsx src/core/tasks/writeQuestions.ts [outDir]`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildQuestionSets, buildTopicSets, type QuestionSets } from './questions';

const outDir = process.argv[2] ?? 'assets/questions';
const write = (dir: string, { questions, probe }: QuestionSets): void => {
  mkdirSync(dir, { recursive: true });
  for (const [name, set] of [
    ['questions.json', questions],
    ['probe.json', probe],
  ] as const) {
    writeFileSync(join(dir, name), `${JSON.stringify(set, null, 1)}\n`);
    console.log(`${join(dir, name)}: ${set.tasks.length} tasks`);
  }
};
write(outDir, buildQuestionSets());
write(join(outDir, 'topics'), buildTopicSets());
