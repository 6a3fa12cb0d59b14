// The architecture, enforced (docs/design.md, "Architecture"): which folder
// of src/ may import which. Imports are read with TypeScript's own
// pre-processor (static imports, re-exports, dynamic import(), require).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/testRecipe';

const SRC = path.join(repoRoot, 'src');
const folder = (name: string) => path.join(SRC, name);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const isTest = (file: string) => /\.test(-d)?\.tsx?$/.test(file) || file.includes(`${path.sep}testing${path.sep}`);

/** Every module a source text imports, relative ones resolved to absolute paths (without extension). */
export function importsOf(file: string, text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map(({ fileName }) => (fileName.startsWith('.') ? path.resolve(path.dirname(file), fileName) : fileName));
}

const inside = (target: string, dir: string) => target === dir || target.startsWith(dir + path.sep);

/** A rule: files in `from` may import, inside the repository, only what lies in `allowed`. */
interface Rule {
  readonly name: string;
  readonly from: string;
  readonly allowed: readonly string[];
  /** Files of `from` the rule does not apply to (the composition root). */
  readonly exempt?: readonly string[];
}

const RULES: readonly Rule[] = [
  { name: 'core imports nothing outside core', from: folder('core'), allowed: [folder('core')] },
  {
    name: 'backends import only core and processes',
    from: folder('backends'),
    allowed: [folder('backends'), folder('core'), folder('processes')],
  },
  {
    name: 'the run reaches backends only through the composition root',
    from: folder('run'),
    // A run serves its policy through its own gateway, so it may start one.
    allowed: [folder('run'), folder('core'), folder('processes'), folder('remote'), path.join(folder('surfaces'), 'gateway')],
    // The composition root: composeRun.ts builds a run's parts from the backend registry, recipeSchemas.ts reads recipes with its sections' schemas.
    exempt: [path.join(folder('run'), 'composeRun.ts'), path.join(folder('run'), 'recipeSchemas.ts')],
  },
  { name: 'processes import only core', from: folder('processes'), allowed: [folder('processes'), folder('core')] },
  { name: 'the contract imports only core', from: folder('contract'), allowed: [folder('contract'), folder('core')] },
];

/** Imports of `file` (inside the repository, outside node_modules) that its rule does not allow. */
function offendersOf(rule: Rule, file: string, text: string): string[] {
  if (rule.exempt?.includes(file)) return [];
  return importsOf(file, text).filter((target) => path.isAbsolute(target) && inside(target, repoRoot) && !rule.allowed.some((dir) => inside(target, dir)));
}

function violations(rule: Rule): string[] {
  return sourceFiles(rule.from)
    .filter((file) => !isTest(file))
    .flatMap((file) => offendersOf(rule, file, readFileSync(file, 'utf8')).map((t) => `${path.relative(repoRoot, file)} → ${path.relative(repoRoot, t)}`));
}

describe('dependency rules', () => {
  it('finds a violation when there is one (the rules can fail)', () => {
    const [core, backends, run] = RULES;
    const coreFile = path.join(folder('core'), 'gate', 'example.ts');
    const coreText = [
      "import { Engine } from '../../backends/embedded/engine/engine';",
      "export { LiveRun } from '../../run/liveRun';",
      "const later = () => import('../../processes/supervisedWorker');",
      "import { judgeReply } from '../judge/criterion';",
      "import { z } from 'zod';",
    ].join('\n');
    expect(offendersOf(core!, coreFile, coreText).map((t) => path.relative(repoRoot, t))).toEqual([
      'src/backends/embedded/engine/engine',
      'src/run/liveRun',
      'src/processes/supervisedWorker',
    ]);
    const backendFile = path.join(folder('backends'), 'embedded', 'example.ts');
    const backendText = "import { LiveRun } from '../../run/liveRun';\nimport type { TrainSample } from '../../core/protocols/trainSample';";
    expect(offendersOf(backends!, backendFile, backendText).map((t) => path.relative(repoRoot, t))).toEqual(['src/run/liveRun']);
    const runText = "import { vllmPolicy } from '../backends/vllm/vllmPolicy';";
    expect(offendersOf(run!, path.join(folder('run'), 'runSession.ts'), runText)).toHaveLength(1);
    expect(offendersOf(run!, path.join(folder('run'), 'composeRun.ts'), runText)).toEqual([]);
  });

  for (const rule of RULES) {
    it(rule.name, () => {
      expect(violations(rule)).toEqual([]);
    });
  }

  it('only the Electron main process and preload import electron (the rest runs under plain Node)', () => {
    const electronSurfaces = [path.join(folder('surfaces'), 'electronMain'), path.join(folder('surfaces'), 'preload')];
    const offenders = sourceFiles(SRC)
      .filter((file) => !electronSurfaces.some((dir) => inside(file, dir)))
      .flatMap((file) =>
        importsOf(file, readFileSync(file, 'utf8'))
          .filter((target) => target === 'electron' || target.startsWith('electron/'))
          .map((target) => `${path.relative(repoRoot, file)} → ${target}`),
      );
    expect(offenders).toEqual([]);
  });
});
