// The seams, enforced (docs/internals.md, "Seams"): the lab core never
// imports a backend, and a backend reaches into the lab only for the
// protocols and the lab's pure modules. Imports are read with TypeScript's
// own pre-processor (static imports, re-exports, dynamic import(), require).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/testRecipe';

const LAB = path.join(repoRoot, 'electron', 'lab');
const WORKERS = path.join(repoRoot, 'electron', 'workers');

/** What a backend may import from the lab: the protocols and the pure modules (criterion and judges, tasks, weights, the RPC plumbing). */
const LAB_FOLDERS_FOR_BACKENDS = ['protocols', 'judge', 'tasks', 'weights', 'workers'].map((f) => path.join(LAB, f) + path.sep);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const isTest = (file: string) => /\.test(-d)?\.tsx?$/.test(file) || file.includes(`${path.sep}testing${path.sep}`) || file.includes(`${path.sep}test${path.sep}`);

/** Every module a source text imports, relative ones resolved to absolute paths (without extension). */
export function importsOf(file: string, text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map(({ fileName }) => (fileName.startsWith('.') ? path.resolve(path.dirname(file), fileName) : fileName));
}

const inside = (target: string, dir: string) => target === dir || target.startsWith(dir + path.sep);

function labImportsOfWorkers(file: string, text: string): string[] {
  return importsOf(file, text).filter((target) => inside(target, WORKERS));
}

function backendImportsOfLab(file: string, text: string): string[] {
  return importsOf(file, text).filter((target) => inside(target, LAB) && !LAB_FOLDERS_FOR_BACKENDS.some((allowed) => target.startsWith(allowed)));
}

describe('dependency rules', () => {
  it('finds a violation when there is one (the rules can fail)', () => {
    const labFile = path.join(LAB, 'run', 'example.ts');
    const text = [
      "import { Engine } from '../../workers/embedded/engine';",
      "export { Tokenizer } from '../../workers/embedded/tokenizer';",
      "const later = () => import('../../workers/embedded/trainer/trainerWorker');",
      "import { judgeReply } from '../judge/criterion';",
    ].join('\n');
    expect(labImportsOfWorkers(labFile, text).map((t) => path.relative(repoRoot, t))).toEqual([
      'electron/workers/embedded/engine',
      'electron/workers/embedded/tokenizer',
      'electron/workers/embedded/trainer/trainerWorker',
    ]);
    const backendFile = path.join(WORKERS, 'embedded', 'example.ts');
    const backendText = "import { LiveRun } from '../../lab/run/liveRun';\nimport type { TrainSample } from '../../lab/protocols/trainSample';";
    expect(backendImportsOfLab(backendFile, backendText).map((t) => path.relative(repoRoot, t))).toEqual(['electron/lab/run/liveRun']);
  });

  it('nothing in electron/lab imports electron/workers/ (tests included)', () => {
    const offenders = sourceFiles(LAB).flatMap((file) =>
      labImportsOfWorkers(file, readFileSync(file, 'utf8')).map((target) => `${path.relative(repoRoot, file)} → ${path.relative(repoRoot, target)}`),
    );
    expect(offenders).toEqual([]);
  });

  it('backends import from the lab only its protocols and pure modules', () => {
    const offenders = sourceFiles(WORKERS)
      .filter((file) => !isTest(file))
      .flatMap((file) =>
        backendImportsOfLab(file, readFileSync(file, 'utf8')).map((target) => `${path.relative(repoRoot, file)} → ${path.relative(repoRoot, target)}`),
      );
    expect(offenders).toEqual([]);
  });

  it('nothing in electron/lab imports electron (the lab core runs under plain Node)', () => {
    const offenders = sourceFiles(LAB).flatMap((file) =>
      importsOf(file, readFileSync(file, 'utf8'))
        .filter((target) => target === 'electron' || target.startsWith('electron/'))
        .map((target) => `${path.relative(repoRoot, file)} → ${target}`),
    );
    expect(offenders).toEqual([]);
  });
});
