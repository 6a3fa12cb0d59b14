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

// ── the seams inside src/lab/ ──────────────────────────────────────────────
// The run manager is a thin facade (runManager.ts) over parts of one job
// each. What starts a run's processes, creates its folder or opens its
// control endpoint is each one part's; and the parts are composed by the
// facade alone, each importing only the parts listed before it.

const lab = (name: string) => path.join(folder('lab'), name);

/** A module and the value bindings of it a source text takes (`*`: the whole module — a namespace, a dynamic import, a require). */
type ValueImport = { module: string; name: string };

/** The value imports of a source text, relative modules resolved; type-only imports are left out (they start nothing). */
export function valueImportsOf(file: string, text: string): ValueImport[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const resolve = (name: string) => (name.startsWith('.') ? path.resolve(path.dirname(file), name) : name);
  const found: ValueImport[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const module = resolve(node.moduleSpecifier.text);
      const clause = node.importClause;
      if (!clause) found.push({ module, name: '*' });
      else if (!clause.isTypeOnly) {
        if (clause.name) found.push({ module, name: 'default' });
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) found.push({ module, name: '*' });
        if (bindings && ts.isNamedImports(bindings))
          for (const element of bindings.elements) if (!element.isTypeOnly) found.push({ module, name: (element.propertyName ?? element.name).text });
      }
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && !node.isTypeOnly) {
      const module = resolve(node.moduleSpecifier.text);
      const clause = node.exportClause;
      if (!clause || ts.isNamespaceExport(clause)) found.push({ module, name: '*' });
      else for (const element of clause.elements) if (!element.isTypeOnly) found.push({ module, name: (element.propertyName ?? element.name).text });
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ module: resolve(node.arguments[0].text), name: '*' });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A seam: the bindings that, in src/lab/, only the files in `only` may import as values. */
interface Seam {
  readonly name: string;
  readonly takes: readonly { readonly module: string; readonly names: readonly string[] }[];
  readonly only: readonly string[];
}

const LAB_SEAMS: readonly Seam[] = [
  {
    name: "in src/lab, only the launcher (runLaunch.ts) starts a run's processes: its sessions, its gate, live mode",
    takes: [
      { module: path.join(folder('run'), 'liveRun'), names: ['LiveRun'] },
      { module: path.join(folder('run'), 'live', 'liveMode'), names: ['openLiveMode'] },
    ],
    only: [lab('runLaunch.ts')],
  },
  {
    name: 'in src/lab, only newRunFolder.ts creates run folders',
    takes: [{ module: path.join(folder('run'), 'createRun'), names: ['createRun'] }],
    only: [lab('newRunFolder.ts')],
  },
  {
    name: "in src/lab, only runHold.ts opens a held run's control endpoint",
    takes: [{ module: path.join(folder('surfaces'), 'control', 'controlServer'), names: ['startControlServer'] }],
    only: [lab('runHold.ts')],
  },
];

const withoutExtension = (target: string) => target.replace(/\.(c|m)?[jt]sx?$/, '');

/** The value imports of `file` that cross the seam. */
function seamOffendersOf(seam: Seam, file: string, text: string): string[] {
  if (seam.only.includes(file)) return [];
  return valueImportsOf(file, text)
    .filter(({ module, name }) => seam.takes.some((t) => withoutExtension(module) === t.module && (name === '*' || t.names.includes(name))))
    .map(({ module, name }) => `${module}#${name}`);
}

/** The run manager's parts, in order: each may import only the parts before it; outside them only the facade imports any. */
const RUN_MANAGER_PARTS = ['heldRuns', 'newRunFolder', 'runHold', 'runViewSender', 'runLaunch', 'runControls', 'screenRuns'].map((name) => lab(name));
const RUN_MANAGER_FACADE = lab('runManager.ts');

/** Imports of `file` (type-only ones too) of run-manager parts it may not import. */
function partOffendersOf(file: string, text: string): string[] {
  if (file === RUN_MANAGER_FACADE) return [];
  const own = RUN_MANAGER_PARTS.indexOf(withoutExtension(file));
  const allowed = own === -1 ? [] : RUN_MANAGER_PARTS.slice(0, own);
  return importsOf(file, text)
    .map(withoutExtension)
    .filter((target) => RUN_MANAGER_PARTS.includes(target) && !allowed.includes(target));
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

    const [launcher] = LAB_SEAMS;
    const starts = "import { LiveRun } from '../run/liveRun';";
    expect(seamOffendersOf(launcher!, lab('runControls.ts'), starts)).toHaveLength(1);
    expect(seamOffendersOf(launcher!, lab('runControls.ts'), "const live = await import('../run/live/liveMode');")).toHaveLength(1);
    expect(seamOffendersOf(launcher!, lab('runLaunch.ts'), starts)).toEqual([]);
    // A type starts nothing: the held run's shape may name LiveRun anywhere.
    const names = "import type { LiveRun } from '../run/liveRun';\nimport { type LiveMode, NotLiveRunError } from '../run/live/liveMode';";
    expect(seamOffendersOf(launcher!, lab('openRun.ts'), names)).toEqual([]);

    const rel = (targets: string[]) => targets.map((t) => path.relative(repoRoot, t));
    expect(rel(partOffendersOf(lab('runHold.ts'), "import { RunLauncher } from './runLaunch';\nimport { HeldRuns } from './heldRuns';"))).toEqual([
      'src/lab/runLaunch',
    ]);
    expect(rel(partOffendersOf(lab('gateRequests.ts'), "import type { HeldRuns } from './heldRuns';"))).toEqual(['src/lab/heldRuns']);
    expect(partOffendersOf(lab('runLaunch.ts'), "import { holdRun } from './runHold';")).toEqual([]);
    expect(partOffendersOf(RUN_MANAGER_FACADE, "import { ScreenRuns } from './screenRuns';")).toEqual([]);
  });

  for (const rule of RULES) {
    it(rule.name, () => {
      expect(violations(rule)).toEqual([]);
    });
  }

  for (const seam of LAB_SEAMS) {
    it(seam.name, () => {
      const offenders = sourceFiles(folder('lab'))
        .filter((file) => !isTest(file))
        .flatMap((file) =>
          seamOffendersOf(seam, file, readFileSync(file, 'utf8')).map((t) => `${path.relative(repoRoot, file)} → ${path.relative(repoRoot, t)}`),
        );
      expect(offenders).toEqual([]);
    });
  }

  it("only the RunManager facade composes the run manager's parts, each importing only the parts before it", () => {
    for (const part of RUN_MANAGER_PARTS) expect(readFileSync(`${part}.ts`, 'utf8')).not.toHaveLength(0);
    const offenders = sourceFiles(SRC)
      .filter((file) => !isTest(file))
      .flatMap((file) => partOffendersOf(file, readFileSync(file, 'utf8')).map((t) => `${path.relative(repoRoot, file)} → ${path.relative(repoRoot, t)}`));
    expect(offenders).toEqual([]);
  });

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
