// The design the code cites is the one in the repository. Product code under
// src/ and renderer/src cites no outside design file ("DESIGN §n", "DESIGN
// invariant n") and needs nothing from beside the repository ("../shared";
// tests may read shared data, so test files are left out of that rule). And
// every "docs/design.md, <section>" citation anywhere in the repository names
// a heading docs/design.md has, or one of its numbered invariants.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/testRecipe';

const TEXT_FILE = /\.(ts|tsx|mts|cts|js|mjs|cjs|py|css|html|json|md|txt|yaml|yml|sh)$/;
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '__pycache__', '.git', 'release']);

function textFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED_FOLDERS.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return textFiles(full);
    return TEXT_FILE.test(entry.name) ? [full] : [];
  });
}

/** Test code: `*.test.ts(x)`, `*.test-d.ts`, and anything in a `test`, `tests` or `testing` folder. */
function isTestFile(file: string): boolean {
  const parts = file.split(path.sep);
  return /\.test(-d)?\.tsx?$/.test(file) || parts.some((part) => part === 'test' || part === 'tests' || part === 'testing');
}

const OUTSIDE_DESIGN = ['DESIGN §', 'DESIGN invariant'] as const;
const OUTSIDE_FOLDER = '../shared';

/** The forbidden strings a file's text contains, as `file: string` lines. */
export function outsideCitations(file: string, text: string): string[] {
  const forbidden = isTestFile(file) ? OUTSIDE_DESIGN : [...OUTSIDE_DESIGN, OUTSIDE_FOLDER];
  return forbidden.filter((needle) => text.includes(needle)).map((needle) => `${path.relative(repoRoot, file)}: ${needle}`);
}

/** The headings of a markdown text, without their `#`s. */
function headingsOf(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => (heading ?? '').trim()));
}

/**
 * The section each "docs/design.md, <section>" citation in a text names: a
 * quoted heading, or the words up to the first punctuation mark (a citation
 * may wrap onto the next comment line).
 */
export function citedSections(text: string): string[] {
  const citation = 'docs/design.md,';
  const lineBreakInComment = /\n[ \t]*(?:\*|\/\/|#)?[ \t]*/g;
  return [...text.matchAll(/docs\/design\.md,/g)].map(({ index }) => {
    // The rest of this line, and the next one in case the citation wraps.
    const after = text.slice(index + citation.length).split('\n', 3);
    const rest = (after[0]?.trim() === '' ? [after[1] ?? ''] : [after[0] ?? '', after[1] ?? '']).join('\n');
    const words = rest
      .replace(lineBreakInComment, ' ')
      .replace(/^[ \t]*(?:\*|\/\/|#)?[ \t]*/, '')
      .trim();
    const quoted = /^"([^"]+)"/.exec(words);
    if (quoted) return quoted[1]!;
    return words
      .split(/[)(:;,."`]/)[0]!
      .replace(/'$/, '')
      .trim();
  });
}

/** The cited sections that docs/design.md does not have. */
export function unknownSections(cited: readonly string[], designHeadings: ReadonlySet<string>): string[] {
  const invariants = new Set(
    [...designHeadings].flatMap((heading) => {
      const numbered = /^Invariant (\d+):/.exec(heading);
      return numbered ? [`invariant ${numbered[1]}`] : [];
    }),
  );
  return cited.filter((section) => !designHeadings.has(section) && !invariants.has(section));
}

const designHeadings = headingsOf(readFileSync(path.join(repoRoot, 'docs', 'design.md'), 'utf8'));

describe('the design the code cites', () => {
  it('reports an outside citation or an outside folder (the check can fail)', () => {
    const product = path.join(repoRoot, 'src', 'core', 'gate', 'example.ts');
    const test = path.join(repoRoot, 'src', 'core', 'gate', 'example.test.ts');
    const text = "// The gate (DESIGN §4), see DESIGN invariant 1.\nconst data = '../shared/data';";
    expect(outsideCitations(product, text)).toEqual([
      'src/core/gate/example.ts: DESIGN §',
      'src/core/gate/example.ts: DESIGN invariant',
      'src/core/gate/example.ts: ../shared',
    ]);
    expect(outsideCitations(test, text)).toEqual(['src/core/gate/example.test.ts: DESIGN §', 'src/core/gate/example.test.ts: DESIGN invariant']);
    expect(outsideCitations(product, '// The gate (docs/design.md, The release gate).')).toEqual([]);
  });

  it('no file under src/ or renderer/src cites the outside design or reaches beside the repository', () => {
    const files = [...textFiles(path.join(repoRoot, 'src')), ...textFiles(path.join(repoRoot, 'renderer', 'src'))];
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => outsideCitations(file, readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('reads the sections citations name, and reports one design.md lacks (the check can fail)', () => {
    const text = [
      '// Serving swaps between requests (docs/design.md, invariant 5).',
      "/** The recipe's sampling (docs/design.md, The objective): T 0.6. */",
      ' * the flags that bind to loopback (docs/design.md,',
      ' * invariant 7): every route needs the token.',
      '# The miniature (docs/design.md, The embedded default): the whole loop.',
      '// The old numbering (docs/design.md, §4).',
      '// docs/design.md, invariant 9, and docs/design.md, A made-up section; more',
      'The rules are in docs/design.md, "What may import what", enforced here.',
      "  it('waits for a person (docs/design.md, A person's confirmation)', () => {",
    ].join('\n');
    const cited = citedSections(text);
    expect(cited).toEqual([
      'invariant 5',
      'The objective',
      'invariant 7',
      'The embedded default',
      '§4',
      'invariant 9',
      'A made-up section',
      'What may import what',
      "A person's confirmation",
    ]);
    expect(unknownSections(cited, designHeadings)).toEqual(['§4', 'invariant 9', 'A made-up section']);
  });

  it('every "docs/design.md, <section>" citation in the repository names a section design.md has', () => {
    const roots = ['src', 'renderer', 'tests', 'bench', 'scripts', 'e2e', 'recipes', 'assets', 'tools', 'docs'];
    // design.md itself and this test show the citation's form, not citations.
    const examples = new Set([path.join(repoRoot, 'docs', 'design.md'), path.join(repoRoot, 'tests', 'designCitations.test.ts')]);
    const files = [...roots.flatMap((root) => textFiles(path.join(repoRoot, root))), path.join(repoRoot, 'README.md')].filter((file) => !examples.has(file));
    const unknown = files.flatMap((file) =>
      unknownSections(citedSections(readFileSync(file, 'utf8')), designHeadings).map((section) => `${path.relative(repoRoot, file)}: ${section}`),
    );
    expect(unknown).toEqual([]);
  });
});
