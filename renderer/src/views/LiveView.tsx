import { useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { RunView } from '../../../src/contract/labRuns';
import { isSettling, type RunPhase } from '../../../src/contract/runPhases';
import { AwaitingBanner, showCandidate } from '../components/run/AwaitingBanner';
import { RunGateCard, RunTrainerCard } from '../components/run/RunGateAndTrainer';
import { ConnectCard } from '../components/live/ConnectCard';
import { ConversationsCard } from '../components/live/ConversationsCard';
import { LiveSessionsCard } from '../components/live/LiveSessionsCard';
import { LiveTranscriptDrawer } from '../components/live/LiveTranscriptDrawer';
import { awaitingCandidates } from '../lib/runProgress';
import { parseServedContext, useLaunchStore } from '../stores/launchStore';
import { isPending, useLabRunStore } from '../stores/labRunStore';
import { liveTranscriptKey, useLiveStore } from '../stores/liveStore';
import { useRunningStore } from '../stores/runningStore';

const PHASE_TEXT: Record<RunPhase, string> = {
  starting: 'starting the engines, trainer and gateway…',
  running: 'serving outside clients',
  pausing: 'pausing…',
  paused: 'paused',
  stopping: 'stopping: journaling the open conversations…',
  stopped: 'stopped — Continue serves again',
  completed: 'complete',
  failed: 'failed',
  viewing: 'opened from disk (nothing serves)',
  'gate-only': 'gate open for your decision (nothing serves)',
};

/** Starting live mode: a runnable recipe, who confirms, and the earlier live runs to continue. */
function LiveStart() {
  const { recipes, chosen, choose, confirm, setConfirm, runs, load } = useLaunchStore(
    useShallow((s) => ({ recipes: s.recipes, chosen: s.recipe, choose: s.choose, confirm: s.confirm, setConfirm: s.setConfirm, runs: s.runs, load: s.load })),
  );
  const { startLive, open, resume, pending, problem, problemOf } = useLabRunStore(
    useShallow((s) => ({ startLive: s.startLive, open: s.open, resume: s.resume, pending: s.pending, problem: s.problem, problemOf: s.problemOf })),
  );
  const running = useRunningStore((s) => s.run);
  useEffect(() => {
    void load();
  }, [load]);
  const runnable = recipes.filter((r) => r.runnable);
  const liveRuns = runs.filter((r) => r.live);
  const busy = running !== null;
  const [context, setContext] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const served = runnable.find((r) => r.id === chosen)?.servedContext ?? null;
  const start = () => {
    if (chosen === null) return;
    const parsed = served === null ? {} : parseServedContext(context);
    if ('error' in parsed) {
      setInvalid(parsed.error);
      return;
    }
    setInvalid(null);
    void startLive({ recipe: chosen, confirm, ...parsed });
  };
  return (
    <div className="launch-view live-start" data-testid="live-start">
      <section className="card">
        <header className="card-header">
          <h3>Live mode</h3>
          <span className="card-meta">your agent&apos;s real conversations train the model, behind the same gate</span>
        </header>
        <p className="small">
          The gateway serves outside clients — OpenClaw, or any OpenAI client — on 127.0.0.1 with a token. Each conversation becomes a session; each reply is
          judged by what came next with the recipe&apos;s PRM and hint judge; candidates are verified, probed three rounds on the recipe&apos;s probe set and
          confirmed by you. Everything stays in the run folder on this machine, and any session can be excluded from training.
        </p>
        {runnable.length === 0 ? (
          <p className="muted">No recipe can run on this machine; the Start page says why.</p>
        ) : (
          <ul className="recipe-list" role="radiogroup" aria-label="Recipe">
            {runnable.map((r) => (
              <li key={r.id}>
                <label className={`recipe-item${chosen === r.id ? ' chosen' : ''}`} data-testid={`live-recipe-${r.name}`}>
                  <input type="radio" name="live-recipe" value={r.id} checked={chosen === r.id} onChange={() => choose(r.id)} />
                  <span className="recipe-body">
                    <span className="recipe-name">{r.name}</span>
                    <span className="recipe-facts muted small">
                      a step per {r.batchTurns} judged turns · {r.rounds} probe rounds · {r.id}
                    </span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
        )}
        <div className="start-form">
          {served !== null && (
            <label>
              Context (tokens)
              <input
                type="text"
                inputMode="numeric"
                data-testid="live-context"
                value={context}
                placeholder={served.tokens === null ? "the engine's default" : `the recipe's ${served.tokens}`}
                onChange={(e) => setContext(e.currentTarget.value)}
              />
            </label>
          )}
          <div className="field">
            Confirm
            <div className="segmented" role="group" aria-label="Confirmation">
              <button type="button" aria-pressed={confirm === 'manual'} data-testid="live-confirm-manual" onClick={() => setConfirm('manual')}>
                manual (a person)
              </button>
              <button type="button" aria-pressed={confirm === 'auto'} data-testid="live-confirm-auto" onClick={() => setConfirm('auto')}>
                auto
              </button>
            </div>
          </div>
          <button
            type="button"
            className="button primary"
            data-testid="live-start-button"
            disabled={chosen === null || busy || isPending(pending, 'start live')}
            onClick={start}
          >
            {isPending(pending, 'start live') ? 'Starting…' : 'Start live mode'}
          </button>
          {busy && (
            <p className="muted small">
              <code>{running.runId}</code> is {running.phase} in this lab; one at a time — stop it first.
            </p>
          )}
        </div>
        {served !== null && (
          <p className="muted small">
            The context is the prompt and the reply together. OpenClaw&apos;s first request is about 2,000 tokens and grows each turn: give SmolLM2 its own
            8192. The lab refuses more than the model holds.
          </p>
        )}
        {invalid !== null && (
          <p className="request-problem" role="alert" data-testid="live-context-problem">
            {invalid}
          </p>
        )}
        {problem !== null && problemOf === 'start live' && (
          <p className="request-problem" role="alert" data-testid="live-start-problem">
            The lab refused: {problem}
          </p>
        )}
      </section>
      {liveRuns.length > 0 && (
        <section className="card" data-testid="live-runs">
          <header className="card-header">
            <h3>Earlier live runs</h3>
            <span className="card-meta">continue one: the trainer is fed again from its journaled sessions</span>
          </header>
          <table className="mini-table">
            <tbody>
              {liveRuns.map((r) => (
                <tr key={r.runId} data-testid={`live-run-${r.runId}`}>
                  <td>
                    <code>{r.runId}</code>
                  </td>
                  <td>{r.status}</td>
                  <td>{r.sessionsCompleted} sessions</td>
                  <td>serving {r.serving}</td>
                  <td>
                    <button type="button" className="link-button" onClick={() => void open({ runId: r.runId })}>
                      open
                    </button>
                    {r.status === 'stopped' && !busy && (
                      <>
                        {' · '}
                        <button
                          type="button"
                          className="link-button"
                          data-testid={`live-continue-${r.runId}`}
                          onClick={() => void open({ runId: r.runId }).then((opened) => (opened ? resume() : undefined))}
                        >
                          continue
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}

/** A live-mode run: where to point a client, the conversations as they come, the journaled sessions, and the gate. */
function LiveRun({ run }: { run: RunView }) {
  const { pending, problem, stop, resume, exclude, excludeOpen, dismiss } = useLabRunStore(
    useShallow((s) => ({
      exclude: s.exclude,
      excludeOpen: s.excludeOpen,
      pending: s.pending,
      problem: s.problem,
      stop: s.stop,
      resume: s.resume,
      dismiss: s.dismissProblem,
    })),
  );
  const { openTranscript, transcript, show, forget, close } = useLiveStore(
    useShallow((s) => ({
      openTranscript: s.open,
      transcript: s.open === null ? undefined : s.transcripts[liveTranscriptKey(s.open.runDir, s.open.session)],
      show: s.show,
      forget: s.forget,
      close: s.close,
    })),
  );
  const h = run.header;
  const live = h.live!;
  const awaiting = useMemo(() => awaitingCandidates(run.candidates), [run.candidates]);
  const canAct = !isSettling(h.phase);
  const serving = live.serving !== null;
  const continuable = !serving && h.heldBy === null && !isSettling(h.phase);
  // Another run on screen: no transcript left open.
  useEffect(() => close(), [h.runDir, close]);
  const first = awaiting[0];
  return (
    <div className="curve-view live-run-view live-page" data-testid="live-view" data-phase={h.phase} data-run-id={h.runId}>
      <header className="run-header live-run-header">
        <div className="run-title-line">
          <h1 data-testid="live-title" title={h.runDir}>
            Live · {h.recipeName} <span className="muted">· {h.runId}</span>
          </h1>
          <span className={`badge phase-badge phase-${h.heldBy !== null ? 'running' : h.phase}`} data-testid="live-phase" data-phase={h.phase}>
            {h.heldBy !== null ? `served by process ${h.heldBy}, followed live` : PHASE_TEXT[h.phase]}
          </span>
          {first !== undefined && (
            <button type="button" className="header-awaiting" data-testid="live-header-awaiting" onClick={() => showCandidate(first.id)}>
              ⚑ {awaiting.length === 1 ? `${first.id} awaits you` : `${awaiting.length} await you`}
            </button>
          )}
          <div className="run-actions">
            {serving && (
              <button type="button" className="button secondary" data-testid="live-stop" disabled={isPending(pending, 'stop')} onClick={() => void stop()}>
                {isPending(pending, 'stop') ? 'Stopping…' : 'Stop live mode'}
              </button>
            )}
            {continuable && (
              <button
                type="button"
                className="button primary"
                data-testid="live-continue"
                disabled={isPending(pending, 'resume')}
                onClick={() => void resume()}
              >
                {isPending(pending, 'resume') ? 'Starting…' : 'Continue'}
              </button>
            )}
          </div>
        </div>
        <p className="muted small" data-testid="live-summary">
          {h.sessions.completed} session{h.sessions.completed === 1 ? '' : 's'} journaled · {live.open.length} open · {run.trainerSteps.length} trainer step
          {run.trainerSteps.length === 1 ? '' : 's'} · serving <code>{h.serving.version}</code>
        </p>
        {h.error !== null && (
          <p className="run-error-banner" role="alert" data-testid="live-failure">
            {h.error}
          </p>
        )}
        {problem !== null && (
          <p className="request-problem" role="alert" data-testid="live-problem">
            The lab refused: {problem}{' '}
            <button type="button" className="link-button" onClick={dismiss}>
              dismiss
            </button>
          </p>
        )}
      </header>
      <AwaitingBanner candidates={awaiting} />
      <div className="live-grid">
        {live.serving !== null ? (
          <ConnectCard runDir={h.runDir} serving={live.serving} />
        ) : (
          <section className="card" data-testid="live-not-serving">
            <header className="card-header">
              <h3>Point a client here</h3>
            </header>
            <p className="muted small">
              Live mode does not serve in this lab now{h.heldBy !== null ? ` (process ${h.heldBy} serves it)` : ''}.{' '}
              {continuable && 'Continue starts the gateway again, with a new port and token.'}
            </p>
          </section>
        )}
        <ConversationsCard open={live.open} serving={serving} onExclude={excludeOpen} />
      </div>
      <LiveSessionsCard
        sessions={run.sessions}
        canExclude={canAct}
        onOpen={(session) => void show(h.runDir, session)}
        onExclude={async (session, reason) => {
          const done = await exclude(session, reason);
          // Its transcript's training changed: read it again when next opened.
          if (done) forget(h.runDir, session);
          return done;
        }}
      />
      <RunGateCard run={run} canAct={canAct} />
      <RunTrainerCard run={run} />
      {openTranscript !== null && openTranscript.runDir === h.runDir && (
        <LiveTranscriptDrawer session={openTranscript.session} state={transcript} onClose={close} />
      )}
    </div>
  );
}

/** The Live page: the live run on screen, or the way to start (or continue) one. */
export function LiveView() {
  const run = useLabRunStore((s) => s.run);
  return run !== null && run.header.live !== null ? <LiveRun run={run} /> : <LiveStart />;
}
