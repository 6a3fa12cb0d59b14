/**
 * Writes assets/homework/homework.json and probe.json from the seeded
 * generator: `npx tsx src/core/tasks/writeHomework.ts [outDir]`;
 * with `--easy`, the easy sets (two steps, values ≤ 100) for small real
 * models: `npx tsx src/core/tasks/writeHomework.ts --easy assets/homework/easy`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildEasyHomeworkAndProbe, buildHomeworkAndProbe } from './generator';

const easy = process.argv.includes('--easy');
const outDir = process.argv.slice(2).find((a) => a !== '--easy') ?? (easy ? 'assets/homework/easy' : 'assets/homework');
mkdirSync(outDir, { recursive: true });
const { homework, probe } = easy ? buildEasyHomeworkAndProbe() : buildHomeworkAndProbe();
for (const [name, set] of [
  ['homework.json', homework],
  ['probe.json', probe],
] as const) {
  writeFileSync(join(outDir, name), `${JSON.stringify(set, null, 1)}\n`);
  console.log(`${join(outDir, name)}: ${set.tasks.length} tasks`);
}
