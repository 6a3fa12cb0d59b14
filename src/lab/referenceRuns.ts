import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { LabError, PublishedResult } from '../contract';
import type { LoadedRun, ReferenceRunInfo } from '../contract';
import { loadRunFromTexts, sha256Hex } from './runFiles';
import { sha256Schema } from '../core/weights/weightIds';

const ReferenceFile = z.strictObject({
  name: z.string().regex(/^[\w.-]+\.csv$/),
  sha256: sha256Schema,
});

/** assets/reference/index.json: which runs ship, and the published result. */
export const ReferenceIndex = z.strictObject({
  published: PublishedResult,
  runs: z.array(
    z.strictObject({
      id: z.string().min(1),
      dir: z.string().regex(/^[\w.-]+$/),
      title: z.string(),
      model: z.string(),
      gated: z.boolean(),
      date: z.string(),
      description: z.string(),
      outcome: z.string(),
      files: z.strictObject({ curve: ReferenceFile, gate: ReferenceFile.optional() }),
    }),
  ),
});
export type ReferenceIndex = z.infer<typeof ReferenceIndex>;

export interface ReferenceLibrary {
  list(): Promise<{ published: PublishedResult; runs: ReferenceRunInfo[] }>;
  open(id: string): Promise<LoadedRun>;
}

/**
 * The reference runs under `referenceDir` (assets/reference). Files are
 * checked against the sha256 in index.json before they are parsed: a
 * reference that changed on disk is refused, not shown.
 */
export function createReferenceLibrary(referenceDir: string): ReferenceLibrary {
  let index: Promise<ReferenceIndex> | null = null;
  const loadIndex = (): Promise<ReferenceIndex> => (index ??= readIndex(referenceDir));
  const sessionCounts = new Map<string, number>();

  async function open(id: string): Promise<LoadedRun> {
    const entry = (await loadIndex()).runs.find((run) => run.id === id);
    if (entry === undefined) throw new LabError('not-found', `no reference run "${id}"`);
    const specs = entry.files.gate === undefined ? [entry.files.curve] : [entry.files.curve, entry.files.gate];
    const files = await Promise.all(
      specs.map(async (spec) => {
        const path = join(referenceDir, entry.dir, spec.name);
        const text = await readFile(path, 'utf8').catch((error: unknown) => {
          throw new LabError('not-found', `reference ${id}: cannot read ${path}: ${String(error)}`);
        });
        if (sha256Hex(text) !== spec.sha256) {
          throw new LabError('internal', `reference ${id}: ${spec.name} does not match its sha256 in index.json`);
        }
        return { name: spec.name, text };
      }),
    );
    const run = loadRunFromTexts(files, { kind: 'reference', id: entry.id, title: entry.title });
    sessionCounts.set(id, run.summary.sessionCount);
    return run;
  }

  return {
    async list() {
      const { published, runs } = await loadIndex();
      const infos: ReferenceRunInfo[] = [];
      for (const run of runs) {
        const sessions = sessionCounts.get(run.id) ?? (await open(run.id)).summary.sessionCount;
        infos.push({
          id: run.id,
          title: run.title,
          model: run.model,
          gated: run.gated,
          date: run.date,
          description: run.description,
          outcome: run.outcome,
          sessions,
        });
      }
      return { published, runs: infos };
    },
    open,
  };
}

async function readIndex(referenceDir: string): Promise<ReferenceIndex> {
  const path = join(referenceDir, 'index.json');
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new LabError('internal', `cannot read ${path}: ${String(error)}`);
  }
  const parsed = ReferenceIndex.safeParse(raw);
  if (!parsed.success) throw new LabError('internal', `${path}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
