import { Fragment, useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { WorkerView } from '../../../../src/contract/workers';
import { duration } from '../../lib/format';
import { useWorkersStore } from '../../stores/workersStore';

const mib = (n: number | null): string => (n === null ? '?' : n >= 1024 ? `${(n / 1024).toFixed(1)} GiB` : `${n} MiB`);

function Device({ worker }: { worker: WorkerView }) {
  if (worker.gpus === null) {
    return <span title="CPU scheduling priority as the OS reports it: 0 normal … 19 lowest">CPU · nice {worker.nice ?? '—'}</span>;
  }
  return (
    <span className="gpu-list">
      {worker.gpus.map((gpu) => (
        <span key={gpu.index} className="gpu" data-gpu={gpu.index} title="memory used / total on this GPU (nvidia-smi)">
          GPU {gpu.index}: {mib(gpu.memoryUsedMiB)} / {mib(gpu.memoryTotalMiB)}
          {gpu.memoryUsedMiB !== null && gpu.memoryTotalMiB !== null && gpu.memoryTotalMiB > 0 && (
            <span className="gpu-bar">
              <span style={{ width: `${Math.min(100, (100 * gpu.memoryUsedMiB) / gpu.memoryTotalMiB)}%` }} />
            </span>
          )}{' '}
        </span>
      ))}
    </span>
  );
}

function since(iso: string | null, now: number): string {
  return iso === null ? '—' : duration((now - Date.parse(iso)) / 1000);
}

/**
 * Every worker process the lab supervises, from the supervisors' own
 * records: whatever backends the recipe runs. A crashed worker shows here
 * while its supervisor restarts it (state, reason, restarts); each row
 * unfolds its log tail.
 */
export function WorkersPanel({ heldBy }: { heldBy: number | null }) {
  const { view, problem, load } = useWorkersStore(useShallow((s) => ({ view: s.view, problem: s.problem, load: s.load })));
  const [now, setNow] = useState(() => Date.now());
  const [openLogs, setOpenLogs] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    void load();
    // Uptimes count on screen between updates.
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(tick);
  }, [load]);
  const workers = view?.workers ?? [];
  const toggle = (id: string) =>
    setOpenLogs((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <section className="card" data-testid="workers-panel" data-workers={workers.length}>
      <header className="card-header">
        <h3>Workers</h3>
        <span className="card-meta">the processes this lab supervises, as their supervisors record them</span>
      </header>
      {heldBy !== null && <p className="muted small">Process {heldBy} runs this run: its workers are that process&apos;s, not listed here.</p>}
      {problem !== null && <p className="text-bad small">{problem}</p>}
      {view !== null && view.gpuProblem !== null && <p className="text-warn small">GPU memory: {view.gpuProblem}</p>}
      {workers.length === 0 ? (
        <p className="muted small">No worker process is running in this lab.</p>
      ) : (
        <table className="mini-table workers-table">
          <thead>
            <tr>
              <th>role</th>
              <th>pid</th>
              <th>process</th>
              <th>device</th>
              <th>state</th>
              <th className="num">restarts</th>
              <th>uptime</th>
              <th>last exit</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {workers.map((worker) => (
              <Fragment key={worker.id}>
                <tr
                  className={`worker-row state-${worker.state}`}
                  data-testid={`worker-${worker.role}`}
                  data-state={worker.state}
                  data-pid={worker.pid ?? ''}
                  data-restarts={worker.restarts}
                >
                  <td>
                    <strong>{worker.role}</strong>
                  </td>
                  <td className="num" data-testid="worker-pid">
                    {worker.pid ?? '—'}
                  </td>
                  <td className="command" title={worker.kind === null ? '' : `started as a ${worker.kind} worker`}>
                    {worker.command ?? '—'}
                  </td>
                  <td>
                    <Device worker={worker} />
                  </td>
                  <td title={worker.detail ?? ''}>
                    <span className={`worker-state state-${worker.state}`} data-testid="worker-state">
                      {worker.state}
                    </span>
                    {worker.state !== 'running' && worker.detail !== null && worker.detail !== worker.lastExit?.reason && (
                      <div className="muted small">{worker.detail}</div>
                    )}
                  </td>
                  <td className="num">{worker.restarts}</td>
                  <td>{since(worker.startedAt, now)}</td>
                  <td className="small last-exit">
                    {worker.lastExit === null ? (
                      <span className="muted">—</span>
                    ) : (
                      <span title={worker.lastExit.at}>
                        {worker.lastExit.reason} <span className="muted">({since(worker.lastExit.at, now)} ago)</span>
                      </span>
                    )}
                  </td>
                  <td>
                    <button
                      type="button"
                      className="link-button small"
                      data-testid="worker-log-toggle"
                      aria-expanded={openLogs.has(worker.id)}
                      onClick={() => toggle(worker.id)}
                    >
                      log ({worker.logTail.length})
                    </button>
                  </td>
                </tr>
                {openLogs.has(worker.id) && (
                  <tr>
                    <td colSpan={9}>
                      <pre className="worker-log" data-testid="worker-log">
                        {worker.logTail.length === 0
                          ? '(nothing written yet)'
                          : worker.logTail.map((line, i) => (
                              <span key={i} className={line.stream} title={`written to ${line.stream}`}>
                                {line.at.slice(11, 19)} {line.line}
                                {'\n'}
                              </span>
                            ))}
                      </pre>
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
