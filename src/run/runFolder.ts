// runs/<id>/ — everything a run writes, in one place:
//   journal.jsonl      the source of truth (append-only, fsync per event)
//   serving.json       the serving pointer (only promote and rollback write it)
//   recipe.yaml        the recipe as given; the journal holds the resolved one
//   weights/           the content-addressed weight store (blobs/, versions/)
//   sessions/NNN.json  one transcript per session (every turn, version, verdict, judgment)
//   samples/NNN.json   the judged turns each session gave the trainer
//   gate/<c>/round-k…  each probe round's replies on both sides, markers included
//   curve.csv gate.csv summary.json   derived from the journal, rewritten as the run goes
//   run.lock           the pid of the process that owns the journal
//   control.json       how to reach a live run (port, token), while it runs
import { open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { journalFile } from '../core/journal/runJournal';
import { servingPointerFile } from '../core/journal/servingPointer';

export const runPaths = (runDir: string) => ({
  journal: journalFile(runDir),
  pointer: servingPointerFile(runDir),
  recipe: path.join(runDir, 'recipe.yaml'),
  weights: path.join(runDir, 'weights'),
  curve: path.join(runDir, 'curve.csv'),
  gateCsv: path.join(runDir, 'gate.csv'),
  summary: path.join(runDir, 'summary.json'),
  lock: path.join(runDir, 'run.lock'),
  control: path.join(runDir, 'control.json'),
  /** Relative to the run folder, as the journal records it. */
  transcript: (session: number) => path.join('sessions', `${String(session).padStart(3, '0')}.json`),
  samples: (session: number) => path.join('samples', `${String(session).padStart(3, '0')}.json`),
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class RunBusyError extends Error {
  constructor(
    readonly runDir: string,
    readonly pid: number,
  ) {
    super(`${runDir} is in use by process ${pid}`);
    this.name = 'RunBusyError';
  }
}

/**
 * One process owns a run's journal at a time. The lock holds its pid; a lock
 * left by a process that no longer exists (killed) is taken over.
 */
export async function lockRun(runDir: string): Promise<() => Promise<void>> {
  const file = runPaths(runDir).lock;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.sync();
      await handle.close();
      return async () => {
        await rm(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = await lockHolder(runDir);
      if (holder !== undefined && alive(holder)) throw new RunBusyError(runDir, holder);
      await rm(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not lock ${runDir}`);
}

/** The pid of the process that holds the run, if any. */
export async function lockHolder(runDir: string): Promise<number | undefined> {
  const text = await readFile(runPaths(runDir).lock, 'utf8').catch(() => '');
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

export async function liveHolder(runDir: string): Promise<number | undefined> {
  const pid = await lockHolder(runDir);
  return pid !== undefined && alive(pid) ? pid : undefined;
}
