/**
 * CPU time actually spent by processes, from Linux's per-thread scheduler
 * statistics (/proc/<pid>/task/<tid>/schedstat, first field: nanoseconds on
 * a CPU). On a shared machine wall-clock rates swing with everyone else's
 * load; the CPU time a piece of work took does not, so bench:engine reports
 * both.
 */
import { readdirSync, readFileSync } from 'node:fs';

function threadCpuNs(pid: number, tid: string): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0; // the thread ended between listing and reading
  }
}

/** Milliseconds of CPU used so far by all live threads of these processes. */
export function cpuMsOf(pids: readonly number[]): number {
  let ns = 0;
  for (const pid of pids) {
    for (const tid of readdirSync(`/proc/${pid}/task`)) ns += threadCpuNs(pid, tid);
  }
  return ns / 1e6;
}

export const cpuTimeAvailable = (): boolean => {
  try {
    readFileSync(`/proc/${process.pid}/schedstat`);
    return true;
  } catch {
    return false;
  }
};
