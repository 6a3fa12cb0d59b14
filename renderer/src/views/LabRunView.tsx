import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ReactNode, RefObject } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { CandidateView, RunView } from '../../../src/contract/labRuns';
import { isLivePhase, isPausePhase, isSettling, type RunPhase } from '../../../src/contract/runPhases';
import { AcceptStrip } from '../components/AcceptStrip';
import { CurveChart } from '../components/CurveChart';
import type { CurveEventMarker } from '../components/CurveChart';
import { ViewControls } from '../components/ViewControls';
import { AwaitingBanner, showCandidate } from '../components/run/AwaitingBanner';
import { InjectCard } from '../components/run/InjectCard';
import { ProgressLine } from '../components/run/ProgressLine';
import { ServingCard } from '../components/run/ServingCard';
import { SessionCard } from '../components/run/SessionCard';
import { SessionsTable } from '../components/run/SessionsTable';
import { TranscriptDrawer } from '../components/run/TranscriptDrawer';
import { WorkersPanel } from '../components/run/WorkersPanel';
import { RunGateCard, RunTrainerCard } from '../components/run/RunGateAndTrainer';
import { awaitingCandidates } from '../lib/runProgress';
import { isPending, useLabRunStore } from '../stores/labRunStore';
import { useReferenceStore } from '../stores/referenceStore';
import { transcriptKey, useTranscriptStore } from '../stores/transcriptStore';
import { useViewStore } from '../stores/viewStore';
import { smoothingLabel } from '../lib/smoothing';

const PHASE_TEXT: Record<RunPhase, string> = {
  starting: 'starting the engines, trainer and gateway…',
  running: 'running',
  pausing: 'pausing after the session in progress…',
  paused: 'paused — serving, trainer and gate go on; Resume starts the next session',
  stopping: 'stopping after the session in progress…',
  stopped: 'stopped — Resume continues it',
  completed: 'complete',
  failed: 'failed',
  viewing: 'opened from disk (nothing runs)',
  'gate-only': 'gate open for your decision (no sessions run)',
};

/** Promotions and rollbacks on the curve, at the first session served after them. */
function curveEvents(history: RunView['servingHistory']): CurveEventMarker[] {
  return history.map((change) => ({
    session: change.afterSessions,
    kind: change.kind === 'promoted' ? 'promotion' : 'rollback',
    label: change.kind === 'promoted' ? `↑ ${change.to.version}` : `↶ ${change.to.version}`,
  }));
}

/** The parts of the run page, in the order the page shows them; the header's nav jumps to each. */
const SECTIONS = [
  { id: 'overview', label: 'Overview' },
  { id: 'curve', label: 'Curve' },
  { id: 'sessions', label: 'Sessions' },
  { id: 'gate', label: 'Gate' },
  { id: 'trainer', label: 'Trainer' },
  { id: 'workers', label: 'Workers' },
] as const;
type SectionId = (typeof SECTIONS)[number]['id'];

const sectionElementId = (id: SectionId) => `run-section-${id}`;

function jumpTo(id: SectionId): void {
  document.getElementById(sectionElementId(id))?.scrollIntoView({ block: 'start' });
}

/** The section at the top of the pane, under the header: the nav marks it, so the person knows where they are. */
function useSectionInView(): SectionId {
  const [current, setCurrent] = useState<SectionId>('overview');
  useEffect(() => {
    const pane = document.querySelector('main.main');
    if (pane === null) return;
    let frame = 0;
    const look = () => {
      frame = 0;
      const header = pane.querySelector('.live-run-header');
      const line = (header?.getBoundingClientRect().bottom ?? pane.getBoundingClientRect().top) + 24;
      let found: SectionId = 'overview';
      for (const section of SECTIONS) {
        const top = document.getElementById(sectionElementId(section.id))?.getBoundingClientRect().top;
        if (top !== undefined && top <= line) found = section.id;
      }
      setCurrent(found);
    };
    const onScroll = () => {
      if (frame === 0) frame = requestAnimationFrame(look);
    };
    look();
    pane.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      pane.removeEventListener('scroll', onScroll);
      if (frame !== 0) cancelAnimationFrame(frame);
    };
  }, []);
  return current;
}

/**
 * The run's header, in view however far the page scrolls: what runs, its
 * progress, Pause/Resume/Stop, the decisions waiting for the person, and
 * the sections of the page one click away.
 */
function RunHeaderBar({ run, awaiting }: { run: RunView; awaiting: readonly CandidateView[] }) {
  const { pending, problem, stop, pause, resume, dismiss } = useLabRunStore(
    useShallow((s) => ({ pending: s.pending, problem: s.problem, stop: s.stop, pause: s.pause, resume: s.resume, dismiss: s.dismissProblem })),
  );
  const h = run.header;
  const live = isLivePhase(h.phase);
  const paused = isPausePhase(h.phase);
  const resumable = paused || (!live && h.heldBy === null && h.phase !== 'completed' && h.sessions.completed < h.sessions.planned);
  const first = awaiting[0];
  const inView = useSectionInView();
  return (
    <header className="run-header live-run-header" data-testid="run-sticky-header">
      <div className="run-title-line">
        <h1 data-testid="live-run-title" title={h.runDir}>
          {h.recipeName} <span className="muted">· {h.runId}</span>
        </h1>
        <span className={`badge phase-badge phase-${h.heldBy !== null ? 'running' : h.phase}`} data-testid="run-phase" data-phase={h.phase}>
          {h.heldBy !== null ? `running in process ${h.heldBy}, followed live` : PHASE_TEXT[h.phase]}
        </span>
        {first !== undefined && (
          <button
            type="button"
            className="header-awaiting"
            data-testid="header-awaiting"
            title="Bring the first waiting candidate's evidence and buttons into view"
            onClick={() => showCandidate(first.id)}
          >
            ⚑ {awaiting.length === 1 ? `${first.id} awaits you` : `${awaiting.length} await you`}
          </button>
        )}
        <div className="run-actions">
          {h.phase === 'running' && (
            <button
              type="button"
              className="button secondary"
              data-testid="pause-button"
              title="Finish the session in progress, then wait: serving, the trainer and the gate go on"
              disabled={isPending(pending, 'pause')}
              onClick={() => void pause()}
            >
              {isPending(pending, 'pause') ? 'Pausing…' : 'Pause'}
            </button>
          )}
          {resumable && (
            <button
              type="button"
              className="button primary"
              data-testid="resume-button"
              disabled={isPending(pending, 'resume') || h.phase === 'pausing'}
              onClick={() => void resume()}
            >
              {isPending(pending, 'resume') ? 'Resuming…' : 'Resume'}
            </button>
          )}
          {(h.phase === 'running' || paused) && (
            <button type="button" className="button secondary" data-testid="stop-button" disabled={isPending(pending, 'stop')} onClick={() => void stop()}>
              {isPending(pending, 'stop') ? 'Stopping…' : 'Stop'}
            </button>
          )}
        </div>
      </div>
      <ProgressLine run={run} />
      <nav className="section-nav" aria-label="Sections of the run page" data-testid="section-nav">
        {SECTIONS.map((section) => (
          <button
            key={section.id}
            type="button"
            className="section-link"
            aria-current={inView === section.id ? 'location' : undefined}
            data-testid={`jump-${section.id}`}
            onClick={() => jumpTo(section.id)}
          >
            {section.label}
            {section.id === 'gate' && awaiting.length > 0 && <span className="tab-badge">⚑ {awaiting.length}</span>}
          </button>
        ))}
      </nav>
      {h.error !== null && (
        <p className="run-error-banner" role="alert" data-testid="run-failure">
          {h.error}
        </p>
      )}
      {problem !== null && (
        <p className="request-problem" role="alert" data-testid="request-problem">
          The lab refused: {problem}{' '}
          <button type="button" className="link-button" onClick={dismiss}>
            dismiss
          </button>
        </p>
      )}
    </header>
  );
}

/** The run's settings and where it lives, at the top of its overview. */
function RunFacts({ run }: { run: RunView }) {
  const h = run.header;
  return (
    <div className="run-files">
      <span className="file-chip">seed {h.seed}</span>
      <span className="file-chip">confirm {h.confirm}</span>
      <span className="file-chip">
        {h.sessions.accepted} accepted · {h.sessions.adaptationSession === null ? 'not adapted yet' : `adapted @${h.sessions.adaptationSession}`}
      </span>
      <span className="file-chip muted" title={h.runDir}>
        {h.runDir}
      </span>
      {h.heldBy !== null && (
        <span className="muted small">
          Process {h.heldBy} runs this run (e.g. <code>gatelab run</code>); the desktop follows its journal and sends your decisions to it.
        </span>
      )}
    </div>
  );
}

/** One part of the run page, a target of the header's nav. */
function RunSection({ id, label, children }: { id: SectionId; label: string; children: ReactNode }) {
  return (
    <section className="run-section" id={sectionElementId(id)} data-testid={`section-${id}`} aria-label={label}>
      {children}
    </section>
  );
}

/** Keeps `--run-header-height` at the sticky header's height, so a section or card scrolled to starts below it. */
function useHeaderHeight(view: RefObject<HTMLDivElement | null>): void {
  useLayoutEffect(() => {
    const root = view.current;
    const header = root?.querySelector('.live-run-header');
    if (!root || !(header instanceof HTMLElement)) return;
    const update = () => root.style.setProperty('--run-header-height', `${header.offsetHeight}px`);
    update();
    const observer = new ResizeObserver(update);
    observer.observe(header);
    return () => observer.disconnect();
  }, [view]);
}

/** A run, live or from disk: its sessions, curve, serving, trainer and gate. */
export function LabRunView({ run }: { run: RunView }) {
  const { pending, selectedSession, selectSession, inject, rollback, lastDecision, focusCandidate, focused } = useLabRunStore(
    useShallow((s) => ({
      focusCandidate: s.focusCandidate,
      focused: s.focused,
      pending: s.pending,
      selectedSession: s.selectedSession,
      selectSession: s.selectSession,
      inject: s.inject,
      rollback: s.rollback,
      lastDecision: s.lastDecision,
    })),
  );
  const { published, overlayRun, loadOverlay } = useReferenceStore(
    useShallow((state) => ({ published: state.published, overlayRun: state.overlay, loadOverlay: state.loadOverlay })),
  );
  const { range, visible, overlayOn, smoothing, showRaw, zoom, setZoom } = useViewStore(
    useShallow((state) => ({
      range: state.range,
      visible: state.visible,
      overlayOn: state.overlay,
      smoothing: state.smoothing,
      showRaw: state.showRaw,
      zoom: state.zoom,
      setZoom: state.setZoom,
    })),
  );
  const { openTranscript, transcript, showTranscript, closeTranscript } = useTranscriptStore(
    useShallow((state) => ({
      openTranscript: state.open,
      transcript: state.open === null ? undefined : state.transcripts[transcriptKey(state.open.runDir, state.open.session)],
      showTranscript: state.show,
      closeTranscript: state.close,
    })),
  );
  // Another run starts unzoomed, with no transcript open.
  useEffect(() => {
    setZoom(null);
    closeTranscript();
  }, [run.header.runDir, setZoom, closeTranscript]);
  useEffect(() => {
    if (overlayOn) void loadOverlay();
  }, [overlayOn, loadOverlay]);

  const h = run.header;
  const curve = useMemo(() => run.sessions.map((s) => s.curve), [run.sessions]);
  const events = useMemo(() => curveEvents(run.servingHistory), [run.servingHistory]);
  const publishedSessions = published?.curveSessions ?? 36;
  const span = range === 'published' ? Math.min(publishedSessions, h.sessions.planned) : h.sessions.planned;
  // The gate can be asked whenever a run is open and not between states.
  const canAct = !isSettling(h.phase);
  const awaiting = useMemo(() => awaitingCandidates(run.candidates), [run.candidates]);
  const viewRef = useRef<HTMLDivElement>(null);
  useHeaderHeight(viewRef);
  // A candidate asked for from the top bar: brought into view once its card is on the page.
  const focusPresent = focusCandidate !== null && run.candidates.some((c) => c.id === focusCandidate);
  useEffect(() => {
    if (!focusPresent || focusCandidate === null) return;
    const frame = requestAnimationFrame(() => {
      showCandidate(focusCandidate);
      focused();
    });
    return () => cancelAnimationFrame(frame);
  }, [focusPresent, focusCandidate, focused]);

  return (
    <div className="curve-view live-run-view" ref={viewRef} data-testid="run-view" data-phase={h.phase} data-run-id={h.runId}>
      <RunHeaderBar run={run} awaiting={awaiting} />
      <RunSection id="overview" label="Overview">
        <AwaitingBanner candidates={awaiting} />
        <RunFacts run={run} />
        <div className="run-grid">
          <SessionCard sessions={run.sessions} planned={h.sessions.planned} running={h.sessions.running} selected={selectedSession} onSelect={selectSession} />
          <div className="run-side">
            <ServingCard
              header={h}
              history={run.servingHistory}
              candidates={run.candidates}
              pending={pending}
              lastDecision={lastDecision}
              canAct={canAct}
              onRollback={(v) => void rollback(v)}
            />
          </div>
        </div>
      </RunSection>
      <RunSection id="curve" label="Learning curve">
        <section className="card" data-testid="live-curve-card">
          <header className="card-header">
            <h3>Learning curve</h3>
            <span className="card-meta">smoothing: {smoothingLabel(smoothing)} · x: session · ↑ promotion, ↶ rollback</span>
          </header>
          <ViewControls
            sessionCount={h.sessions.planned}
            publishedSessions={publishedSessions}
            overlayAvailable
            overlayTitle={overlayRun?.summary.title ?? null}
            adaptationSession={h.sessions.adaptationSession}
          />
          {published !== null && (
            <CurveChart
              title={h.runId}
              smoothing={smoothing}
              showRaw={showRaw}
              zoom={zoom}
              onZoom={setZoom}
              sessions={curve}
              overlay={overlayOn && overlayRun !== null ? overlayRun.sessions : null}
              overlayTitle={overlayRun?.summary.title ?? null}
              range={range}
              visible={visible}
              published={published}
              adaptationSession={h.sessions.adaptationSession}
              span={span}
              events={events}
            />
          )}
          <div className="strip-title">Per-session verdict on the first reply (green: accepted)</div>
          <AcceptStrip
            sessions={curve}
            range={range}
            publishedSessions={publishedSessions}
            span={span}
            zoom={zoom}
            markers={{ published: published?.adaptationSession ?? null, adapted: h.sessions.adaptationSession }}
          />
        </section>
      </RunSection>
      <RunSection id="sessions" label="Sessions">
        <SessionsTable sessions={run.sessions} openSession={openTranscript?.session ?? null} onOpen={(session) => void showTranscript(h.runDir, session)} />
      </RunSection>
      <RunSection id="gate" label="Release gate">
        <RunGateCard run={run} canAct={canAct} />
        <InjectCard candidates={run.candidates} injections={h.injections} pending={pending} canAct={canAct} onInject={(kind) => void inject(kind)} />
      </RunSection>
      <RunSection id="trainer" label="Trainer">
        <RunTrainerCard run={run} />
      </RunSection>
      <RunSection id="workers" label="Workers">
        <WorkersPanel heldBy={h.heldBy} />
      </RunSection>
      {openTranscript !== null && openTranscript.runDir === h.runDir && (
        <TranscriptDrawer session={openTranscript.session} state={transcript} onClose={closeTranscript} />
      )}
    </div>
  );
}
