import type { SessionView } from '../../../src/contract/labRuns';

type SortValue = number | string | null;

/** The sessions table's columns: what each shows and how it sorts. */
export const SESSION_COLUMNS = [
  { key: 'session', label: '#', numeric: true, value: (s: SessionView): SortValue => s.session },
  { key: 'task', label: 'task', numeric: false, value: (s: SessionView): SortValue => s.taskId },
  { key: 'gold', label: 'gold', numeric: true, value: (s: SessionView): SortValue => s.gold },
  { key: 'accepted', label: 'accepted', numeric: false, value: (s: SessionView): SortValue => (s.accepted ? 1 : 0) },
  { key: 'markers', label: 'markers found', numeric: false, value: (s: SessionView): SortValue => s.verdict.markers.length },
  { key: 'shownWork', label: 'shown work', numeric: true, value: (s: SessionView): SortValue => s.verdict.shownWork.length },
  { key: 'goldFound', label: 'gold found', numeric: false, value: (s: SessionView): SortValue => (s.verdict.goldAt === null ? 0 : 1) },
  { key: 'turns', label: 'turns', numeric: true, value: (s: SessionView): SortValue => s.turns },
  { key: 'version', label: 'served by', numeric: false, value: (s: SessionView): SortValue => versionOrder(s.version) },
  { key: 'reward', label: 'reward', numeric: true, value: (s: SessionView): SortValue => s.reward },
  { key: 'hint', label: 'hint', numeric: false, value: (s: SessionView): SortValue => s.hint?.text ?? null },
] as const;

export type SessionColumnKey = (typeof SESSION_COLUMNS)[number]['key'];
export type SortDirection = 'ascending' | 'descending';
export type SessionSort = { readonly key: SessionColumnKey; readonly direction: SortDirection };

/** Versions in the order they were made: base first, then by trainer step (v12 after v9, unlike text). */
function versionOrder(version: string): number {
  if (version === 'base') return -1;
  const step = /^v(\d+)-/.exec(version)?.[1];
  return step === undefined ? Number.MAX_SAFE_INTEGER : Number(step);
}

function compare(a: SortValue, b: SortValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

/**
 * The sessions sorted by a column, stably (ties keep session order), with
 * empty values (no reward, no hint) last in either direction.
 */
export function sortSessions(sessions: readonly SessionView[], sort: SessionSort): SessionView[] {
  const column = SESSION_COLUMNS.find((c) => c.key === sort.key);
  if (column === undefined) return [...sessions];
  const sign = sort.direction === 'ascending' ? 1 : -1;
  return sessions
    .map((session, index) => ({ session, index, value: column.value(session) }))
    .sort((a, b) => {
      if (a.value === null || b.value === null) return a.value === b.value ? a.index - b.index : a.value === null ? 1 : -1;
      return sign * compare(a.value, b.value) || a.index - b.index;
    })
    .map((entry) => entry.session);
}

/** A click on a column: the same column flips its direction, another starts ascending. */
export function nextSort(current: SessionSort, key: SessionColumnKey): SessionSort {
  if (current.key !== key) return { key, direction: 'ascending' };
  return { key, direction: current.direction === 'ascending' ? 'descending' : 'ascending' };
}
