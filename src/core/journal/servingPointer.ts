// runs/<id>/serving.json — which version serves. Written only by promote and
// rollback (docs/design.md, invariant 1), atomically: temp file, fsync, rename, fsync of the
// folder so the rename itself survives a power cut (docs/design.md, invariant 3).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { servedVersionSchema, sha256Schema } from '../weights/weightIds';
import { writeFileAtomic } from './atomicFile';

export const servingPointerSchema = z.strictObject({
  // An injected or external candidate without a trainer step is `v0-…`.
  version: servedVersionSchema,
  sha256: sha256Schema,
});
export type ServingPointer = z.infer<typeof servingPointerSchema>;

export const servingPointerFile = (runDir: string): string => path.join(runDir, 'serving.json');

export async function readServingPointer(runDir: string): Promise<ServingPointer | undefined> {
  let text: string;
  try {
    text = await readFile(servingPointerFile(runDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return servingPointerSchema.parse(JSON.parse(text));
}

/**
 * Replaces the pointer atomically. Only the gate's promote and rollback call
 * this; everything else reads.
 */
export async function writeServingPointer(runDir: string, pointer: ServingPointer): Promise<void> {
  const valid = servingPointerSchema.parse(pointer);
  await writeFileAtomic(servingPointerFile(runDir), JSON.stringify(valid) + '\n');
}
