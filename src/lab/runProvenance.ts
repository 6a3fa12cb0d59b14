// Which experiment a run folder's curve belongs to: the recipe, seed and arm
// its journal's first event (run-started) recorded. Read from the first line
// alone, so a long journal is not read whole to label a curve. The recorded
// recipe is read defensively: a journal written before recipes named an arm
// is a trained run.
import { open } from 'node:fs/promises';
import type { RunProvenance } from '../contract';
import { LabError } from '../contract';
import { journalEventSchema } from '../core/journal/journalEvents';
import { journalFile } from '../core/journal/runJournal';

/** The first line of a run-started event is a recipe: a few KB; more than this is not a journal's first line. */
const MAX_FIRST_LINE = 4 * 1024 * 1024;

const fieldsOf = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});

/** The provenance a recorded recipe gives: its name, its seed, its arm (absent → trained), its stated preference. */
export function provenanceOfRecipe(recipe: unknown): RunProvenance {
  const fields = fieldsOf(recipe);
  const name = typeof fields['name'] === 'string' ? fields['name'] : '—';
  const seed = typeof fields['seed'] === 'number' && Number.isInteger(fields['seed']) && fields['seed'] >= 0 ? fields['seed'] : null;
  const statement = fieldsOf(fields['preference'])['statement'];
  return { recipe: name, seed, arm: fields['arm'] === 'control' ? 'control' : 'trained', ...(typeof statement === 'string' ? { preference: statement } : {}) };
}

async function firstLine(file: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      const newline = chunk.indexOf(0x0a);
      if (newline >= 0) {
        chunks.push(chunk.subarray(0, newline));
        return Buffer.concat(chunks).toString('utf8');
      }
      chunks.push(chunk);
      total += bytesRead;
      if (total > MAX_FIRST_LINE) break;
    }
    // No complete first line: a journal torn at its first append records no run.
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * The provenance a journal's first line records (`where` names the file in
 * the refusal). A line that is not a run-started event is refused: the
 * journal is damaged, and a curve must not be labelled with a guess.
 */
export function provenanceOfFirstLine(line: string, where: string): RunProvenance {
  let event;
  try {
    event = journalEventSchema.parse(JSON.parse(line));
  } catch (error) {
    throw new LabError(
      'not-found',
      `${where}: its first line is not a journal event (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
    );
  }
  if (event.type !== 'run-started') throw new LabError('not-found', `${where} does not start with run-started`);
  return provenanceOfRecipe(event.recipe);
}

/** The run folder's provenance from its journal; undefined when the folder has no journal (curve files copied on their own). */
export async function readRunProvenance(runDir: string): Promise<RunProvenance | undefined> {
  const file = journalFile(runDir);
  const line = await firstLine(file);
  return line === undefined ? undefined : provenanceOfFirstLine(line, file);
}
