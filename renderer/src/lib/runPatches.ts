import type { RunPatch, RunView } from '../../../src/contract/labRuns';

/** Replaces items with the same key and adds new ones, keeping the list ordered by `order`. */
function mergeByKey<T, K>(list: readonly T[], changed: readonly T[], keyOf: (item: T) => K, order: (a: T, b: T) => number): T[] {
  if (changed.length === 0) return list as T[];
  const byKey = new Map<K, T>(list.map((item) => [keyOf(item), item]));
  for (const item of changed) byKey.set(keyOf(item), item);
  return [...byKey.values()].sort(order);
}

export type PatchOutcome =
  /** The view with every patch applied. */
  | { kind: 'applied'; run: RunView }
  /** A patch is missing (a dropped socket) or belongs to a run we do not hold: fetch the whole view again. */
  | { kind: 'refetch' };

/**
 * Applies a batch of `labRuns.changed` patches (one animation frame's
 * worth) to the run on screen. Items merge by key, so a patch that repeats
 * what a fresh snapshot already holds changes nothing; a gap in the update
 * numbers means something was lost, and the caller fetches the whole view.
 */
export function applyRunPatches(current: RunView | null, patches: readonly RunPatch[]): PatchOutcome {
  let run = current;
  for (const patch of patches) {
    if (patch.reset) {
      run = {
        header: patch.header,
        sessions: [...patch.sessions],
        trainerSteps: [...patch.trainerSteps],
        refusedSteps: [...patch.refusedSteps],
        candidates: [...patch.candidates],
        servingHistory: patch.servingHistory ?? [],
      };
      continue;
    }
    if (run === null || run.header.runDir !== patch.header.runDir) return { kind: 'refetch' };
    // Already contained in the snapshot we hold.
    if (patch.header.update <= run.header.update) continue;
    if (patch.header.update !== run.header.update + 1) return { kind: 'refetch' };
    run = {
      header: patch.header,
      sessions: mergeByKey(
        run.sessions,
        patch.sessions,
        (s) => s.session,
        (a, b) => a.session - b.session,
      ),
      trainerSteps: mergeByKey(
        run.trainerSteps,
        patch.trainerSteps,
        (s) => s.step,
        (a, b) => a.step - b.step,
      ),
      refusedSteps: mergeByKey(
        run.refusedSteps,
        patch.refusedSteps,
        (s) => `${s.at}/${s.samplesThrough}`,
        (a, b) => a.at.localeCompare(b.at),
      ),
      candidates: mergeByKey(
        run.candidates,
        patch.candidates,
        (c) => c.id,
        (a, b) => Number(a.id.slice(1)) - Number(b.id.slice(1)),
      ),
      servingHistory: patch.servingHistory ?? run.servingHistory,
    };
  }
  return run === null ? { kind: 'refetch' } : { kind: 'applied', run };
}
