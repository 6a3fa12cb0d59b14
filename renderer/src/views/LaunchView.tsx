import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { RecipeChoice, RunFolderInfo } from '../../../src/contract/labRuns';
import { parseLaunchForm, useLaunchStore } from '../stores/launchStore';
import { useCompareStore } from '../stores/compareStore';
import { isPending, isPendingAny, useLabRunStore } from '../stores/labRunStore';
import { usePageStore } from '../stores/pageStore';
import { useRunningStore } from '../stores/runningStore';

/** A recipe this host can run: chosen with its radio, its facts and description shown. */
function RunnableRecipe({ recipe, chosen, choose }: { recipe: RecipeChoice; chosen: boolean; choose: (id: string) => void }) {
  return (
    <label className={`recipe-item${chosen ? ' chosen' : ''}`} data-testid={`recipe-${recipe.name}`} data-runnable="yes">
      <input type="radio" name="recipe" value={recipe.id} checked={chosen} onChange={() => choose(recipe.id)} />
      <span className="recipe-body">
        <span className="recipe-name">
          {recipe.name} {recipe.isDefault && <span className="badge badge-good">default</span>}
        </span>
        <span className="recipe-facts muted small">
          {recipe.sessions} sessions · seed {recipe.seed} · a step per {recipe.batchTurns} judged turns
          {recipe.windowTurns > recipe.batchTurns ? ` (each on the newest ${recipe.windowTurns})` : ''} · {recipe.rounds} probe rounds · confirm{' '}
          {recipe.confirm} · {recipe.id}
        </span>
        <span className="recipe-desc small">{recipe.description}</span>
      </span>
    </label>
  );
}

/** A recipe this host cannot run: one line with its main reason; every reason and its facts on demand. */
function BlockedRecipe({ recipe }: { recipe: RecipeChoice }) {
  const [open, setOpen] = useState(false);
  const main = recipe.reasons[0] ?? 'it cannot run on this machine';
  const more = recipe.reasons.length - 1;
  return (
    <div className="recipe-item not-runnable compact" data-testid={`recipe-${recipe.name}`} data-runnable="no">
      <input type="radio" name="recipe" value={recipe.id} checked={false} disabled aria-label={`${recipe.name} (cannot run here)`} />
      <span className="recipe-body">
        <span className="recipe-line">
          <span className="recipe-name">{recipe.name}</span>
          <span className="badge badge-bad">cannot run here</span>
          <span className="recipe-main-reason small" data-testid="recipe-main-reason" title={main}>
            {main}
          </span>
          <button type="button" className="link-button small" aria-expanded={open} data-testid="recipe-details-toggle" onClick={() => setOpen(!open)}>
            {open ? 'hide' : more > 0 ? `why · ${more} more` : 'details'}
          </button>
        </span>
        <span className="recipe-details" hidden={!open}>
          <span className="recipe-facts muted small">
            {recipe.sessions} sessions · seed {recipe.seed} · {recipe.rounds} probe rounds · {recipe.id}
          </span>
          <span className="recipe-desc small">{recipe.description}</span>
          <ul className="reasons small" data-testid={`recipe-reasons-${recipe.name}`}>
            {recipe.reasons.map((reason) => (
              <li key={reason}>{reason}</li>
            ))}
          </ul>
        </span>
      </span>
    </div>
  );
}

/** The recipes this host can run, to choose from. */
function RecipeList() {
  const { recipes, chosen, choose } = useLaunchStore(useShallow((s) => ({ recipes: s.recipes, chosen: s.recipe, choose: s.choose })));
  if (recipes.length === 0) return <p className="muted">No recipes found.</p>;
  const runnable = recipes.filter((r) => r.runnable);
  if (runnable.length === 0) return <p className="muted">None of the recipes can run on this machine; each says why below.</p>;
  return (
    <ul className="recipe-list" role="radiogroup" aria-label="Recipe">
      {runnable.map((recipe) => (
        <li key={recipe.id}>
          <RunnableRecipe recipe={recipe} chosen={chosen === recipe.id} choose={choose} />
        </li>
      ))}
    </ul>
  );
}

/** The recipes this host cannot run, below the form: one line each. */
function BlockedRecipes() {
  const recipes = useLaunchStore((s) => s.recipes);
  const blocked = recipes.filter((r) => !r.runnable);
  if (blocked.length === 0) return null;
  return (
    <div className="blocked-recipes">
      <div className="section-title">Not on this machine</div>
      <ul className="recipe-list">
        {blocked.map((recipe) => (
          <li key={recipe.id}>
            <BlockedRecipe recipe={recipe} />
          </li>
        ))}
      </ul>
    </div>
  );
}

function StartForm() {
  const form = useLaunchStore(
    useShallow((s) => ({
      recipes: s.recipes,
      recipe: s.recipe,
      seed: s.seed,
      sessions: s.sessions,
      confirm: s.confirm,
      setSeed: s.setSeed,
      setSessions: s.setSessions,
      setConfirm: s.setConfirm,
    })),
  );
  const { pending, start, open, onScreen } = useLabRunStore(
    useShallow((s) => ({ pending: s.pending, start: s.start, open: s.open, onScreen: s.run?.header.runDir ?? null })),
  );
  const running = useRunningStore((s) => s.run);
  const show = usePageStore((s) => s.show);
  const [invalid, setInvalid] = useState<string | null>(null);
  // One run at a time, on screen or in the background: while one runs, Start waits (the lab would refuse it anyway).
  const busy = running !== null;
  const goToRunning = () => {
    if (running === null) return;
    show('run');
    if (onScreen !== running.runDir) void open({ path: running.runDir });
  };
  const recipe = form.recipes.find((r) => r.id === form.recipe) ?? null;
  const submit = () => {
    if (recipe === null) return;
    const parsed = parseLaunchForm(form, recipe);
    if ('error' in parsed) {
      setInvalid(parsed.error);
      return;
    }
    setInvalid(null);
    void start({ recipe: recipe.id, confirm: form.confirm, ...parsed }).then((started) => started && show('run'));
  };
  return (
    <form
      className="start-form"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <label>
        Seed
        <input
          type="text"
          inputMode="numeric"
          data-testid="start-seed"
          value={form.seed}
          placeholder={recipe === null ? '' : String(recipe.seed)}
          onChange={(e) => form.setSeed(e.currentTarget.value)}
        />
      </label>
      <label>
        Sessions
        <input
          type="text"
          inputMode="numeric"
          data-testid="start-sessions"
          value={form.sessions}
          placeholder={recipe === null ? '' : `all ${recipe.sessions}`}
          onChange={(e) => form.setSessions(e.currentTarget.value)}
        />
      </label>
      <div className="field">
        Confirm
        <div className="segmented" role="group" aria-label="Confirmation">
          <button type="button" aria-pressed={form.confirm === 'manual'} data-testid="confirm-manual" onClick={() => form.setConfirm('manual')}>
            manual (a person)
          </button>
          <button type="button" aria-pressed={form.confirm === 'auto'} data-testid="confirm-auto" onClick={() => form.setConfirm('auto')}>
            auto
          </button>
        </div>
      </div>
      <button
        type="submit"
        className="button primary"
        data-testid="start-button"
        disabled={recipe === null || !recipe.runnable || isPending(pending, 'start') || busy}
      >
        {isPending(pending, 'start') ? 'Starting…' : 'Start run'}
      </button>
      {running !== null && (
        <p className="muted small" data-testid="start-busy">
          <code>{running.runId}</code> is {running.phase} in this lab; one run at a time —{' '}
          <button type="button" className="link-button" data-testid="start-busy-go" onClick={goToRunning}>
            go to it
          </button>{' '}
          and stop it to start another.
        </p>
      )}
      {invalid !== null && <p className="text-bad small">{invalid}</p>}
    </form>
  );
}

const STATUS_TEXT: Record<RunFolderInfo['status'], string> = {
  running: 'running',
  stopped: 'stopped',
  complete: 'complete',
  failed: 'failed',
};

/** "2026-12-03T07:38:10.123Z" → "2026-12-03 07:38" in the person's own time zone. */
function startedText(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The runs in the runs folder, newest first: where each stands, and whether one waits for you. */
function RunFolders() {
  const { runs, runsDir, loadRuns } = useLaunchStore(useShallow((s) => ({ runs: s.runs, runsDir: s.runsDir, loadRuns: s.loadRuns })));
  const { open, pending, onScreen, openProblem } = useLabRunStore(
    useShallow((s) => ({ open: s.open, pending: s.pending, onScreen: s.run?.header.runId ?? null, openProblem: s.problemOf === 'open' ? s.problem : null })),
  );
  const show = usePageStore((s) => s.show);
  // Primitives only (a joined string, not a new array per render), as zustand's selectors need.
  const compare = useCompareStore(useShallow((s) => ({ add: s.addFolder, origins: s.runs.map((r) => r.origin).join('\n'), count: s.runs.length })));
  const compared = (runId: string) => compare.origins.split('\n').includes(`run folder ${runId}`);
  const [folder, setFolder] = useState('');
  const opening = isPendingAny(pending, 'open');
  const openRun = (where: { runId: string } | { path: string }) => void open(where).then((opened) => opened && show('run'));
  return (
    <section className="card" data-testid="run-folders">
      <header className="card-header">
        <h3>Runs</h3>
        <span className="card-meta">
          in <code>{runsDir ?? '…'}</code>{' '}
          <button type="button" className="link-button" onClick={() => void loadRuns()}>
            refresh
          </button>
          {compare.count > 0 && (
            <>
              {' · '}
              <button type="button" className="link-button" data-testid="show-comparison" onClick={() => show('viewer')}>
                show the comparison ({compare.count})
              </button>
            </>
          )}
        </span>
      </header>
      {runs.length === 0 ? (
        <p className="muted small">No runs yet.</p>
      ) : (
        <div className="table-scroll run-list-scroll">
          <table className="mini-table run-list" data-testid="run-list">
            <thead>
              <tr>
                <th>run</th>
                <th>status</th>
                <th>started</th>
                <th className="num">sessions done</th>
                <th>serving</th>
                <th>awaiting you</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => (
                <tr
                  key={run.runId}
                  data-testid={`run-folder-${run.runId}`}
                  data-status={run.status}
                  className={run.runId === onScreen ? 'on-screen' : undefined}
                >
                  <td>
                    <code className="run-id" title={run.runId}>
                      {run.runId}
                    </code>
                    <div className="muted small">{run.recipeName}</div>
                  </td>
                  <td>
                    <span className={`status-badge status-${run.status}`} data-testid="run-status" title={run.failure ?? undefined}>
                      {STATUS_TEXT[run.status]}
                    </span>
                    {run.status === 'failed' && run.failure !== null && <div className="small text-bad run-failure">{run.failure}</div>}
                  </td>
                  <td className="nowrap">{startedText(run.startedAt)}</td>
                  <td className="num">
                    {/* Live mode plans no sessions: they are the outside conversations journaled so far. */}
                    {run.live ? `${run.sessionsCompleted} live` : `${run.sessionsCompleted} / ${run.sessionsPlanned}`}
                  </td>
                  <td>
                    <code>{run.serving}</code>
                  </td>
                  <td data-testid="run-awaiting">
                    {run.awaitingConfirm.length === 0 ? (
                      <span className="muted">—</span>
                    ) : (
                      <strong className="text-warn">{run.awaitingConfirm.join(', ')}</strong>
                    )}
                  </td>
                  <td>
                    <span className="nowrap">
                      <button
                        type="button"
                        className="button secondary small"
                        disabled={opening}
                        data-testid={`open-run-${run.runId}`}
                        onClick={() => openRun({ runId: run.runId })}
                      >
                        {run.status === 'running' ? 'Watch' : 'Open'}
                      </button>{' '}
                      <button
                        type="button"
                        className="button secondary small"
                        data-testid={`compare-run-${run.runId}`}
                        title="Overlay its curve with other runs in the curve viewer"
                        disabled={run.sessionsCompleted === 0 || compared(run.runId)}
                        onClick={() => void compare.add({ runId: run.runId })}
                      >
                        {compared(run.runId) ? '✓ compared' : '+ Compare'}
                      </button>
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form
        className="open-folder"
        onSubmit={(event) => {
          event.preventDefault();
          if (folder.trim() !== '') openRun({ path: folder.trim() });
        }}
      >
        <input
          type="text"
          placeholder="or a run folder's path, e.g. runs/embedded-gsm8k-style-seed1-…"
          value={folder}
          onChange={(e) => setFolder(e.currentTarget.value)}
          data-testid="open-folder-path"
        />
        <button type="submit" className="button secondary small" data-testid="open-folder-button" disabled={opening || folder.trim() === ''}>
          Open folder
        </button>
      </form>
      {openProblem !== null && (
        <p className="text-bad small open-folder-problem" role="alert" data-testid="open-folder-problem">
          {openProblem}
        </p>
      )}
    </section>
  );
}

/** The start page: run a recipe, or open a run from the list (reading a curve is the viewer's page). */
export function LaunchView() {
  const { load, problem } = useLaunchStore(useShallow((s) => ({ load: s.load, problem: s.problem })));
  // The lab's answer to Start, here; an answer to opening a folder stands beside the folder's path.
  const startProblem = useLabRunStore((s) => (s.problemOf === 'start' ? s.problem : null));
  const livePhase = useLabRunStore((s) => s.run?.header.phase ?? null);
  useEffect(() => {
    void load();
  }, [load]);
  // The run list shows each run's status: read it again when the run on screen changes phase,
  // and when the run this lab runs (perhaps in the background) moves on.
  const loadRuns = useLaunchStore((s) => s.loadRuns);
  const runningProgress = useRunningStore((s) => (s.run === null ? null : `${s.run.runId} ${s.run.phase} ${s.run.sessionsCompleted}`));
  useEffect(() => {
    if (livePhase !== null || runningProgress !== null) void loadRuns();
  }, [livePhase, runningProgress, loadRuns]);
  return (
    <div className="start-view" data-testid="start-view">
      <section className="card" data-testid="launch-card">
        <header className="card-header">
          <h3>Start a run</h3>
          <span className="card-meta">sessions with the scripted student, the trainer, and the release gate — all on this machine</span>
        </header>
        <RecipeList />
        <StartForm />
        {(problem ?? startProblem) !== null && (
          <p className="text-bad" role="alert" data-testid="launch-problem">
            {problem ?? startProblem}
          </p>
        )}
        <BlockedRecipes />
      </section>
      <RunFolders />
    </div>
  );
}
