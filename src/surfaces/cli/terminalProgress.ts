// Progress of a run on the terminal: one line rewritten in place on a TTY
// (session k/N, accepted, trainer step, serving version, gate state), plain
// event lines otherwise so that logs stay readable.
import type { JournalEvent } from '../../core/journal/journalEvents';
import type { LiveRun } from '../../run/liveRun';

export function followRun(run: LiveRun, out: NodeJS.WriteStream = process.stdout): () => void {
  const tty = out.isTTY === true;
  const render = () => {
    const s = run.status();
    const active = s.candidates.find((c) => c.state === 'probing' || c.state === 'staged' || c.state === 'verified');
    const waiting = s.candidates.filter((c) => c.state === 'awaiting-confirm').map((c) => c.id);
    const gate = active ? `${active.id} ${active.state}${active.state === 'probing' ? ` ${active.round}/${run.recipe.gate.rounds}` : ''}` : 'idle';
    return `session ${s.sessions.completed}/${s.sessions.planned} · accepted ${s.sessions.accepted} · step ${s.trainerSteps} · serving ${s.serving.version} · gate ${gate}${waiting.length ? ` · awaiting confirm: ${waiting.join(', ')}` : ''}`;
  };
  const line = (e: JournalEvent): string | undefined => {
    switch (e.type) {
      case 'session-completed':
        return `session ${e.session} ${e.accepted ? 'accepted' : 'not accepted'} (${e.turns} turns, ${e.versions.at(-1)})`;
      case 'trainer-step':
        return `trainer step ${e.step}: ${e.candidate.version} (loss ${e.stats.loss?.toFixed(4)})`;
      case 'trainer-step-refused':
        return `trainer step refused (${e.code}): ${e.message}`;
      case 'candidate-staged':
        return `gate: ${e.id} staged (${e.version}, ${e.source.kind === 'inject' ? `inject ${e.source.badKind}` : e.source.kind})`;
      case 'probe-round':
        return `gate: ${e.id} round ${e.round} ${e.passed ? 'passed' : `failed: ${e.failing.join('; ')}`}`;
      case 'candidate-awaiting-confirm':
        return run.recipe.gate.confirm === 'auto'
          ? `gate: ${e.id} passed ${run.recipe.gate.rounds} rounds — confirmed automatically (confirm: auto)`
          : `gate: ${e.id} passed ${run.recipe.gate.rounds} rounds — awaiting confirmation (gatelab confirm --run ${run.runDir} --candidate ${e.id})`;
      case 'candidate-promoted':
        return `gate: ${e.id} promoted — serving ${e.previous.version} → ${e.pointer.version}`;
      case 'candidate-rejected':
        return `gate: ${e.id} rejected (${e.reason.code}): ${e.reason.detail}`;
      case 'candidate-superseded':
        return `gate: ${e.id} superseded by ${e.by}`;
      case 'serving-rolled-back':
        return `serving rolled back ${e.previous.version} → ${e.pointer.version} (${e.by})`;
      default:
        return undefined;
    }
  };
  const unsubscribe = run.journal.onEvent((e) => {
    const text = line(e);
    if (tty) {
      if (text && e.type !== 'session-completed') out.write(`\r\x1b[K${text}\n`);
      out.write(`\r\x1b[K${render()}`);
    } else if (text) {
      out.write(`${text}\n`);
    }
  });
  if (tty) out.write(render());
  return () => {
    unsubscribe();
    if (tty) out.write('\n');
  };
}
