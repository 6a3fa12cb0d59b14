/**
 * The commands a person uses on the gate: confirm, reject, rollback, inject.
 * A live run (another process) is asked through its control endpoint; a run
 * no process holds is opened here with its gate and probe engine only, the
 * action done, the gate's pending work finished, and closed.
 */
import { BAD_CANDIDATE_KINDS, CANDIDATE_ID_PATTERN, type BadCandidateKind } from '../../core/gate/candidateVocabulary';
import { askLiveRun, performControl, type ControlRequest } from '../control/controlServer';
import { LiveRun } from '../../run/liveRun';
import { readRunStatus, type CandidateStatus } from '../../run/runStatus';
import { CliFailure, UsageError, type CliCommand } from './cliCommand';
import { parseOptions, requireRunDir } from './cliArgs';

async function act(runDir: string, request: ControlRequest): Promise<unknown> {
  try {
    const live = await askLiveRun(runDir, request);
    if (live) return live.result;
    const run = await LiveRun.open(runDir, { mode: 'gate', onLog: (line) => process.stderr.write(`${line}\n`) });
    try {
      const result = await performControl(run, request);
      await run.gate.idle();
      return result;
    } finally {
      await run.close();
    }
  } catch (error) {
    throw new CliFailure((error as Error).message);
  }
}

/** Waits until a candidate leaves the gate's automatic part (rejected, awaiting a person, promoted, …). */
async function verdictOf(runDir: string, id: string, timeoutMs = 15 * 60_000): Promise<CandidateStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = (await readRunStatus(runDir)).candidates.find((x) => x.id === id);
    if (!c) throw new CliFailure(`candidate ${id} is not in the journal`);
    if (c.state !== 'staged' && c.state !== 'verified' && c.state !== 'probing' && c.state !== 'confirmed') return c;
    if (Date.now() > deadline) return c;
    await new Promise((r) => setTimeout(r, 500));
  }
}

function printCandidate(c: CandidateStatus): void {
  console.log(`${c.id} ${c.version} (${c.source}): ${c.state}${c.reason ? ` — ${c.reason}` : ''}`);
}

const idPattern = CANDIDATE_ID_PATTERN;
function candidateId(value: string | undefined): string {
  if (!value || !idPattern.test(value)) throw new UsageError('--candidate ID (c1, c2, …) is required');
  return value;
}

export const confirmCommand: CliCommand = {
  summary: 'confirm a candidate that passed its probe rounds: it is promoted and serves',
  usage: 'Usage: gatelab confirm --run DIR --candidate ID',
  run: async (args) => {
    const o = parseOptions(args, { run: { type: 'string' }, candidate: { type: 'string' } });
    const runDir = requireRunDir(o.run);
    const before = (await readRunStatus(runDir)).serving;
    await act(runDir, { action: 'confirm', id: candidateId(o.candidate) });
    const after = await readRunStatus(runDir);
    printCandidate(after.candidates.find((c) => c.id === o.candidate)!);
    console.log(`serving: ${before.version} → ${after.serving.version}`);
    return 0;
  },
};

export const rejectCommand: CliCommand = {
  summary: 'reject a candidate (any state before promotion)',
  usage: 'Usage: gatelab reject --run DIR --candidate ID [--reason TEXT]',
  run: async (args) => {
    const o = parseOptions(args, { run: { type: 'string' }, candidate: { type: 'string' }, reason: { type: 'string' } });
    const runDir = requireRunDir(o.run);
    const id = candidateId(o.candidate);
    await act(runDir, { action: 'reject', id, reason: o.reason ?? 'rejected by a person' });
    printCandidate((await readRunStatus(runDir)).candidates.find((c) => c.id === id)!);
    return 0;
  },
};

export const rollbackCommand: CliCommand = {
  summary: 'serve an earlier version again (one that was promoted before, or base)',
  usage: 'Usage: gatelab rollback --run DIR --version VERSION',
  run: async (args) => {
    const o = parseOptions(args, { run: { type: 'string' }, version: { type: 'string' } });
    const runDir = requireRunDir(o.run);
    if (!o.version) throw new UsageError('--version VERSION is required (see gatelab status)');
    const before = (await readRunStatus(runDir)).serving;
    await act(runDir, { action: 'rollback', version: o.version });
    console.log(`serving: ${before.version} → ${(await readRunStatus(runDir)).serving.version}`);
    return 0;
  },
};

export const injectCommand: CliCommand = {
  summary: 'stage a deliberately bad candidate (--kind) or any adapter file (--file) through the gate',
  usage: `Usage: gatelab inject --run DIR (--kind KIND | --file PATH)

  --kind KIND   ${BAD_CANDIDATE_KINDS.join(' | ')}
  --file PATH   a safetensors adapter, or a PEFT folder (adapter_model.safetensors,
                optional manifest.json with the blobSha256 it claims)`,
  run: async (args) => {
    const o = parseOptions(args, { run: { type: 'string' }, kind: { type: 'string' }, file: { type: 'string' } });
    const runDir = requireRunDir(o.run);
    if ((o.kind === undefined) === (o.file === undefined)) throw new UsageError('give exactly one of --kind KIND or --file PATH');
    if (o.kind !== undefined && !BAD_CANDIDATE_KINDS.includes(o.kind as BadCandidateKind)) {
      throw new UsageError(`--kind must be one of ${BAD_CANDIDATE_KINDS.join(', ')}`);
    }
    const before = (await readRunStatus(runDir)).serving;
    const result = (await act(
      runDir,
      o.kind !== undefined ? { action: 'inject', kind: o.kind as BadCandidateKind } : { action: 'inject-file', file: o.file! },
    )) as { id: string };
    const verdict = await verdictOf(runDir, result.id);
    printCandidate(verdict);
    for (const r of verdict.rounds) {
      console.log(
        `  round ${r.round} (seed ${r.seed}): ${r.passed ? 'passed' : 'failed'} — candidate pass ${r.candidate.pass_rate} gold ${r.candidate.gold_rate} answered ${r.candidate.answered_rate} violations ${r.candidate.mean_violations.toFixed(2)}; serving ${r.serving.version} pass ${r.serving.pass_rate} gold ${r.serving.gold_rate} answered ${r.serving.answered_rate} violations ${r.serving.mean_violations.toFixed(2)}`,
      );
    }
    console.log(`serving pointer: before ${before.version}, after ${(await readRunStatus(runDir)).serving.version}`);
    return 0;
  },
};
