/**
 * Writes assets/homework/homework.json and probe.json from the seeded
 * generator: `npx tsx electron/lab/tasks/writeHomework.ts [outDir]`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildHomeworkAndProbe } from './generator';

const outDir = process.argv[2] ?? 'assets/homework';
mkdirSync(outDir, { recursive: true });
const { homework, probe } = buildHomeworkAndProbe();
for (const [name, set] of [['homework.json', homework], ['probe.json', probe]] as const) {
  writeFileSync(join(outDir, name), `${JSON.stringify(set, null, 1)}\n`);
  console.log(`${join(outDir, name)}: ${set.tasks.length} tasks`);
}
