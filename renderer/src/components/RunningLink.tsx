import { useShallow } from 'zustand/react/shallow';
import { useLabRunStore } from '../stores/labRunStore';
import { usePageStore } from '../stores/pageStore';
import { useRunningStore } from '../stores/runningStore';

/**
 * The top bar's way back to the run this lab runs, shown wherever the person
 * is not already watching it: it keeps running while another run is on
 * screen, and one click brings it back, live.
 */
export function RunningLink() {
  const running = useRunningStore((state) => state.run);
  const { onScreen, open } = useLabRunStore(useShallow((state) => ({ onScreen: state.run?.header.runDir ?? null, open: state.open })));
  const { page, show } = usePageStore(useShallow((state) => ({ page: state.page, show: state.show })));
  if (running === null) return null;
  const watching = onScreen === running.runDir;
  if (watching && (page === 'run' || (running.live && page === 'live'))) return null;
  // Live mode has no planned sessions: its count is the conversations journaled so far.
  const progress = running.live ? `live · ${running.sessionsCompleted} sessions` : `${running.sessionsCompleted}/${running.sessionsPlanned}`;
  return (
    <button
      type="button"
      className={`running-link phase-${running.phase}`}
      data-testid="running-link"
      data-completed={running.sessionsCompleted}
      data-phase={running.phase}
      title={`${running.runId} (${running.recipeName}) is ${running.phase} in this lab: ${progress}${running.live ? '' : ' sessions done'}. Go to it.`}
      onClick={() => {
        show(running.live ? 'live' : 'run');
        if (!watching) void open({ path: running.runDir });
      }}
    >
      <span className="running-dot" aria-hidden="true" />
      {running.phase}: <code className="running-name">{running.runId}</code> <span className="running-progress">{progress}</span>
    </button>
  );
}
