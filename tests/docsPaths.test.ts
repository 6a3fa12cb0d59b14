// The documents name real files: every repository path README.md,
// docs/internals.md and docs/design.md mention — in backticks, in a heading,
// or in a fenced block such as the README's source tree — exists. A path
// with a placeholder (`bench/results/<name>.json`, `src/backends/sglang/*.test.ts`)
// must at least have its folder.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/testRecipe';

const DOCUMENTS = ['README.md', 'docs/internals.md', 'docs/design.md'] as const;

/**
 * The top-level folders whose paths the documents may name — and `electron`,
 * the root of the layout before `src/`, so a stale mention of it is reported.
 */
const PATH_ROOTS = ['src', 'renderer', 'scripts', 'bench', 'tests', 'e2e', 'recipes', 'assets', 'docs', 'tools', 'electron'] as const;

const startsAtRoot = new RegExp(`^(${PATH_ROOTS.join('|')})/`);
const PLACEHOLDER = /[<{*…]/;

/** The candidate paths in one piece of text: tokens that start at a repository root, trailing punctuation removed. */
function pathTokens(text: string): string[] {
  return text
    .split(/[\s()[\]"'`,;|]+/)
    .map((token) => token.replace(/[.:]+$/, ''))
    .filter((token) => startsAtRoot.test(token));
}

/** Every repository path a markdown text mentions in backticks, in a heading or in a fenced block. */
export function mentionedPaths(markdown: string): string[] {
  const found: string[] = [];
  // Fenced blocks first, so their ``` fences are not read as inline code.
  const outsideFences = markdown.replace(/^```[^\n]*\n([\s\S]*?)^```[^\n]*$/gm, (_block, body: string) => {
    found.push(...pathTokens(body));
    return '';
  });
  for (const [, code] of outsideFences.matchAll(/`([^`\n]+)`/g)) found.push(...pathTokens(code ?? ''));
  for (const [, heading] of outsideFences.matchAll(/^#{1,6} (.*)$/gm)) found.push(...pathTokens(heading ?? ''));
  return [...new Set(found)];
}

/** The paths of `paths` that do not exist under `root`; a placeholder path stands for its folder. */
export function missingPaths(paths: readonly string[], root: string): string[] {
  return paths.filter((mentioned) => {
    const placeholderAt = mentioned.search(PLACEHOLDER);
    const concrete = placeholderAt < 0 ? mentioned : mentioned.slice(0, mentioned.lastIndexOf('/', placeholderAt) + 1);
    return concrete === '' || !existsSync(path.join(root, concrete));
  });
}

describe('paths the documents mention', () => {
  it('reports a made-up path (the check can fail)', () => {
    const markdown = [
      '## The gate (src/core/gate/)',
      'The gate lives in `src/core/gate/releaseGate.ts`, its twin in `src/core/gate/madeUpTwin.ts`.',
      'Results go to `bench/results/<name>.json`; reports to `bench/nowhere/<name>.json`.',
      'Commands such as `npm run setup` and run folders such as `runs/a/` are not repository paths.',
      '```',
      'src/core/                  pure',
      'src/madeUpFolder/          not there',
      '```',
    ].join('\n');
    const paths = mentionedPaths(markdown);
    expect(paths).toEqual(
      expect.arrayContaining(['src/core/gate/', 'src/core/gate/releaseGate.ts', 'src/core/gate/madeUpTwin.ts', 'src/core/', 'src/madeUpFolder/']),
    );
    expect(paths).not.toContain('runs/a/');
    expect(missingPaths(paths, repoRoot).sort()).toEqual(['bench/nowhere/<name>.json', 'src/core/gate/madeUpTwin.ts', 'src/madeUpFolder/']);
  });

  for (const document of DOCUMENTS) {
    it(`${document} names only paths that exist`, () => {
      const paths = mentionedPaths(readFileSync(path.join(repoRoot, document), 'utf8'));
      expect(paths.length).toBeGreaterThan(0);
      expect(missingPaths(paths, repoRoot)).toEqual([]);
    });
  }
});
