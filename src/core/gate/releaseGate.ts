// The release gate (docs/design.md, The release gate): the only thing that changes what serves.
//
// Every candidate — from the trainer, injected, or an external file — enters
// through `stage` and walks the same path: verify (static checks) → three
// probe rounds paired against serving on a separate probe engine →
// awaiting-confirm → confirmed (a person, or `auto`) → promoted. Any failure
// rejects it with a reason and leaves serving as it was (docs/design.md, invariant 4).
//
// A candidate awaiting a person stays until a person decides it (the
// waiting-candidate rule, README "The release gate"): while one waits, the gate
// starts no probe round for a trainer candidate. The trainer's newest
// candidate waits after verify — each newer one supersedes it, since its steps
// are in the newer one — and is probed once the person has decided, against
// what serves then. Candidates a person injected are probed at once. A
// candidate's evidence holds against the version it was probed against: if
// another version serves by the time a person confirms it, the confirmation
// is refused (fail closed), and the person can only reject it.
//
// Each transition is checked by the state fold (gateState.ts), written to the
// journal with its evidence, and only then applied. All transitions run one
// at a time (an in-process mutex), so a person's reject can never interleave
// with a probe round's result; the long probe sampling runs outside it.
import path from 'node:path';
import type { GateConfig } from '../recipe/recipeSchema';
import type { JournalEvent, NewJournalEvent, Rejection } from '../journal/journalEvents';
import { writeFileAtomic } from '../journal/atomicFile';
import type { RunJournal } from '../journal/runJournal';
import { writeServingPointer, type ServingPointer } from '../journal/servingPointer';
import type { AdapterRef } from '../protocols/engineProtocol';
import { foldGateState, isHeldForPerson, isTerminal, planGateEvent, type CandidateRecord, type GateState } from './gateState';
import { judgeProbeReply, probeRoundMetrics, type JudgedProbeReply, type ProbeReply } from './probeMetrics';
import type { ReplyCriterion } from '../preference/replyCriterion';
import type { ProbeSampler } from './probeRunner';
import { judgeRound } from './roundVerdict';
import { verifyCandidateFile, type VerifySettings } from './verifyCandidate';
import type { Confirmer } from './candidateVocabulary';

/** What the gate tells when a version must start serving (the gateway's swap). */
export interface ServingSwitch {
  swapTo(adapter: AdapterRef | null): Promise<unknown>;
}

export type ReleaseGateOptions = {
  runDir: string;
  journal: RunJournal;
  config: GateConfig;
  verify: VerifySettings;
  /** Absent when no probe engine runs (an offline `confirm` or `rollback`); staged candidates then wait. */
  probe?: ProbeSampler;
  /** Absent when nothing serves (offline); the pointer is still written. */
  serving?: ServingSwitch;
  /** What accepts a probe reply: the sessions' own (default: the pass criterion). */
  criterion?: ReplyCriterion;
  /** Mixed into every round's seed so that runs with different seeds probe differently. */
  runSeed: number;
  /** Errors the background loop could not attribute to a caller (logged, never swallowed silently). */
  onError?: (error: Error) => void;
  /**
   * Awaited when a probe round has started (its event journaled) and before
   * it samples: a barrier that lets a test fix the order of a round and other
   * work instead of depending on how fast two processes run.
   */
  beforeProbeRound?: (id: string, round: number) => Promise<void>;
};

export class GateRequestError extends Error {
  override readonly name = 'GateRequestError';
}

export class ReleaseGate {
  readonly state: GateState;
  private mutex: Promise<unknown> = Promise.resolve();
  private pumping: Promise<void> | undefined;
  private closed = false;

  constructor(private options: ReleaseGateOptions) {
    this.state = foldGateState(options.config.rounds, options.journal.events);
    if (!this.state.pointer) throw new Error('the journal has no run-started event: no serving pointer to guard');
  }

  /** Connects the probe engine and serving once they run (the gate's state is read before they start). */
  attach(parts: { probe: ProbeSampler; serving?: ServingSwitch }): void {
    this.options = { ...this.options, ...parts };
  }

  get pointer(): ServingPointer {
    const p = this.state.pointer;
    if (!p) throw new Error('no serving pointer');
    return p;
  }

  candidates(): CandidateRecord[] {
    return [...this.state.candidates.values()];
  }

  candidate(id: string): CandidateRecord {
    const c = this.state.candidates.get(id);
    if (!c) throw new GateRequestError(`no candidate ${id}`);
    return c;
  }

  /** The blob path of a version that has served (for the serving engine and rollback). */
  adapterRef(pointer: ServingPointer): AdapterRef | null {
    if (pointer.version === 'base') return null;
    const c = this.candidates().find((x) => x.version === pointer.version && x.sha256 === pointer.sha256);
    if (!c) throw new Error(`version ${pointer.version} has no candidate in this run`);
    return {
      version: c.version,
      sha256: c.sha256,
      path: path.join(this.options.runDir, c.blob),
      adapterConfigPath: this.adapterConfigPath(c.version),
      // The alpha verify checked: what the engine must apply.
      loraAlpha: this.options.verify.lora.alpha,
    };
  }

  /** A version's PEFT adapter_config.json in the run's weight store (weightStore.ts layout). */
  private adapterConfigPath(version: string): string {
    return path.join(this.options.runDir, 'weights', 'versions', version, 'adapter_config.json');
  }

  /**
   * Makes the pointer file agree with the journal (the journal is the truth:
   * a crash between the promotion event and the rename leaves the old file).
   */
  async reconcilePointerFile(current: ServingPointer | undefined): Promise<void> {
    const p = this.pointer;
    if (!current || current.version !== p.version || current.sha256 !== p.sha256) {
      await writeServingPointer(this.options.runDir, p);
    }
  }

  // ── entering the gate ────────────────────────────────────────────────────

  /** Records a candidate whose blob is already in the weight store; starts the gate's work on it. */
  async stage(input: { version: string; sha256: string; blob: string; source: CandidateRecord['source'] }): Promise<CandidateRecord> {
    const record = await this.exclusive(async () => {
      const id = `c${this.state.candidates.size + 1}`;
      await this.record({ type: 'candidate-staged', id, ...input });
      // The trainer's newest adapter contains every older step: older trainer
      // candidates that have not started probing are superseded by it.
      if (input.source.kind === 'trainer') {
        for (const older of this.candidates()) {
          if (older.id !== id && older.source.kind === 'trainer' && (older.state.kind === 'staged' || older.state.kind === 'verified')) {
            await this.record({ type: 'candidate-superseded', id: older.id, by: id });
          }
        }
      }
      return this.candidate(id);
    });
    this.kick();
    return record;
  }

  // ── a person's decisions ─────────────────────────────────────────────────

  async confirm(id: string, by: Confirmer): Promise<CandidateRecord> {
    await this.exclusive(async () => {
      const c = this.candidate(id);
      if (c.state.kind !== 'awaiting-confirm') {
        throw new GateRequestError(`candidate ${id} is ${c.state.kind}; only a candidate awaiting confirmation can be confirmed`);
      }
      const probedAgainst = c.rounds.at(-1)?.serving.version;
      if (probedAgainst !== undefined && probedAgainst !== this.pointer.version) {
        throw new GateRequestError(
          `candidate ${id} was probed against ${probedAgainst}, but ${this.pointer.version} serves now: its evidence no longer compares it with what serves, so it cannot be confirmed (reject it; the trainer's next candidate is probed against ${this.pointer.version})`,
        );
      }
      await this.record({ type: 'candidate-confirmed', id, by });
      await this.promoteLocked(c);
    });
    this.kick(); // a trainer candidate held for this decision goes on
    return this.candidate(id);
  }

  /**
   * Whether the gate holds this candidate for a person's decision: a trainer
   * candidate past verify, while another candidate awaits confirmation.
   */
  heldForPerson(c: CandidateRecord): boolean {
    return isHeldForPerson(this.state, c);
  }

  async reject(id: string, detail: string): Promise<CandidateRecord> {
    await this.exclusive(async () => {
      const c = this.candidate(id);
      if (isTerminal(c.state)) throw new GateRequestError(`candidate ${id} is already ${c.state.kind}`);
      await this.rejectLocked(c, { code: 'person', detail });
    });
    this.kick(); // a trainer candidate held for this decision goes on
    return this.candidate(id);
  }

  /** A person moves serving back to a version that served before. */
  async rollback(version: string): Promise<ServingPointer> {
    return this.exclusive(async () => {
      const target = [...this.state.servedVersions].reverse().find((p) => p.version === version);
      if (!target) {
        const served = this.state.servedVersions.map((p) => p.version).join(', ');
        throw new GateRequestError(`cannot roll back to ${version}: only versions that served can be restored (${served})`);
      }
      const previous = this.pointer;
      if (target.version === previous.version) throw new GateRequestError(`${version} is already serving`);
      // Re-check the blob before anything moves (fail closed).
      const ref = this.adapterRef(target);
      if (ref) {
        const check = await verifyCandidateFile(ref.path, ref.sha256, this.options.verify, this.adapterConfigPath(target.version));
        if (!check.ok) throw new GateRequestError(`cannot roll back to ${version}: ${check.reason.detail}`);
      }
      await this.record({ type: 'serving-rolled-back', pointer: target, previous, by: 'person' });
      await writeServingPointer(this.options.runDir, target);
      await this.options.serving?.swapTo(ref);
      return target;
    });
  }

  // ── the gate's own work ──────────────────────────────────────────────────

  /** Resolves when no candidate needs the gate's work (all terminal or awaiting a person). */
  async idle(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  /** Starts (or continues) the background work: one candidate at a time, oldest first. */
  kick(): void {
    if (this.pumping || this.closed) return;
    let failed = false;
    this.pumping = this.pump()
      .catch((error: unknown) => {
        // Nothing was applied that is not on disk; the next kick (a new
        // candidate, a resume) tries again — never a busy loop of failures.
        failed = true;
        this.options.onError?.(error as Error);
      })
      .finally(() => {
        this.pumping = undefined;
        if (!failed && !this.closed && this.nextWork()) this.kick();
      });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }

  private nextWork(): CandidateRecord | undefined {
    return this.candidates()
      .filter((c) => {
        switch (c.state.kind) {
          case 'staged':
            return true;
          case 'verified':
          case 'probing':
            return this.options.probe !== undefined && !this.heldForPerson(c);
          case 'confirmed':
            return true;
          case 'awaiting-confirm':
            return this.options.config.confirm === 'auto';
          case 'promoted':
          case 'rejected':
          case 'superseded':
            return false;
        }
      })
      .sort((a, b) => a.stagedSeq - b.stagedSeq)[0];
  }

  private async pump(): Promise<void> {
    for (let c = this.nextWork(); c && !this.closed; c = this.nextWork()) await this.advance(c);
  }

  /** Moves one candidate as far as the gate can take it without a person. */
  private async advance(c: CandidateRecord): Promise<void> {
    if (c.state.kind === 'staged') await this.verifyStep(c);
    const probe = this.options.probe;
    while (probe && !this.closed && (c.state.kind === 'verified' || c.state.kind === 'probing') && !this.heldForPerson(c)) {
      const passed = c.state.kind === 'probing' ? c.state.passedRounds : 0;
      if (passed >= this.options.config.rounds) {
        await this.exclusive(() => this.awaitConfirmLocked(c));
        break;
      }
      await this.probeRound(c, probe, passed + 1);
    }
    if (c.state.kind === 'awaiting-confirm' && this.options.config.confirm === 'auto') {
      await this.exclusive(async () => {
        if (c.state.kind !== 'awaiting-confirm') return;
        await this.record({ type: 'candidate-confirmed', id: c.id, by: 'auto' });
        await this.promoteLocked(c);
      });
    }
    if (c.state.kind === 'confirmed') await this.exclusive(() => this.promoteLocked(c));
  }

  private async verifyStep(c: CandidateRecord): Promise<void> {
    const outcome = await verifyCandidateFile(path.join(this.options.runDir, c.blob), c.sha256, this.options.verify, this.adapterConfigPath(c.version));
    await this.exclusive(async () => {
      if (c.state.kind !== 'staged') return; // rejected by a person meanwhile
      if (outcome.ok) await this.record({ type: 'candidate-verified', id: c.id, evidence: outcome.evidence });
      else await this.rejectLocked(c, outcome.reason);
    });
  }

  private async probeRound(c: CandidateRecord, probe: ProbeSampler, round: number): Promise<void> {
    // Start the round (a fresh seed: the journal position makes it unique and reproducible).
    const started = await this.exclusive(async () => {
      const ok = c.state.kind === 'verified' || (c.state.kind === 'probing' && c.state.passedRounds === round - 1);
      if (!ok) return undefined;
      const seed = roundSeed(this.options.runSeed, this.options.journal.events.length);
      await this.record({ type: 'candidate-probing', id: c.id, round, seed });
      return { seed, serving: this.pointer };
    });
    if (!started) return;
    await this.options.beforeProbeRound?.(c.id, round);

    let candidateReplies: JudgedProbeReply[];
    let servingReplies: JudgedProbeReply[];
    let metrics: ReturnType<typeof probeRoundMetrics>;
    try {
      const candidateRef: AdapterRef = {
        version: c.version,
        sha256: c.sha256,
        path: path.join(this.options.runDir, c.blob),
        adapterConfigPath: this.adapterConfigPath(c.version),
        loraAlpha: this.options.verify.lora.alpha,
      };
      const judge = (replies: ProbeReply[]) => replies.map((r) => judgeProbeReply(r, this.options.criterion));
      const sides = await probe.sampleRound(candidateRef, this.adapterRef(started.serving), started.seed);
      candidateReplies = judge(sides.candidate);
      servingReplies = judge(sides.serving);
      metrics = probeRoundMetrics(candidateReplies, servingReplies);
    } catch (error) {
      await this.exclusive(async () => {
        if (!isTerminal(c.state)) await this.rejectLocked(c, { code: 'probe-error', detail: (error as Error).message });
      });
      return;
    }
    const { candidate, serving } = metrics;
    const verdict = judgeRound(candidate, serving, this.options.config.margins, this.options.config.floors);
    const replies = await this.writeRoundReplies(c.id, round, started.seed, started.serving, candidateReplies, servingReplies);

    await this.exclusive(async () => {
      if (isTerminal(c.state)) return; // a person rejected it while the round ran
      await this.record({
        type: 'probe-round',
        id: c.id,
        round,
        seed: started.seed,
        passed: verdict.passed,
        failing: verdict.failing,
        candidate,
        serving: { ...serving, version: started.serving.version },
        replies,
      });
      if (!verdict.passed) {
        await this.rejectLocked(c, {
          code: 'regression',
          detail: `round ${round}: ${verdict.failing.join('; ')}`,
          ...(verdict.metrics[0] ? { metric: verdict.metrics[0] } : {}),
        });
      }
    });
  }

  private async awaitConfirmLocked(c: CandidateRecord): Promise<void> {
    if (c.state.kind !== 'probing' || c.state.passedRounds !== this.options.config.rounds) return;
    // Never supersedes a candidate already waiting: that one is a person's to decide.
    await this.record({ type: 'candidate-awaiting-confirm', id: c.id });
  }

  /** Re-verifies the blob, journals the promotion, writes the pointer, then tells serving. */
  private async promoteLocked(c: CandidateRecord): Promise<void> {
    if (c.state.kind !== 'confirmed') return;
    const blobPath = path.join(this.options.runDir, c.blob);
    const check = await verifyCandidateFile(blobPath, c.sha256, this.options.verify, this.adapterConfigPath(c.version));
    if (!check.ok) {
      await this.rejectLocked(c, { code: 'promote-verify', detail: `at promotion: ${check.reason.detail}` });
      return;
    }
    const previous = this.pointer;
    const pointer = { version: c.version, sha256: c.sha256 };
    await this.record({ type: 'candidate-promoted', id: c.id, pointer, previous });
    await writeServingPointer(this.options.runDir, pointer);
    for (const older of this.candidates()) {
      if (older.source.kind === 'trainer' && c.source.kind === 'trainer' && older.state.kind === 'awaiting-confirm' && older.stagedSeq < c.stagedSeq) {
        await this.record({ type: 'candidate-superseded', id: older.id, by: c.id });
      }
    }
    try {
      await this.options.serving?.swapTo({ version: c.version, sha256: c.sha256, path: blobPath });
    } catch (error) {
      // Serving kept the previous version (the swap fails closed); make the
      // pointer say so again, and record why.
      const reason = `serving could not load ${c.version}: ${(error as Error).message}`;
      await this.record({ type: 'serving-rolled-back', pointer: previous, previous: pointer, by: 'gate', reason });
      await writeServingPointer(this.options.runDir, previous);
      this.options.onError?.(new Error(reason));
    }
  }

  private async rejectLocked(c: CandidateRecord, reason: Rejection): Promise<void> {
    await this.record({ type: 'candidate-rejected', id: c.id, reason, pointer: this.pointer });
  }

  private async writeRoundReplies(
    id: string,
    round: number,
    seed: number,
    serving: ServingPointer,
    candidate: JudgedProbeReply[],
    servingReplies: JudgedProbeReply[],
  ): Promise<string> {
    const relative = path.join('gate', id, `round-${round}-seed-${seed}.json`);
    const evidence = { id, round, seed, servingVersion: serving.version, candidate, serving: servingReplies };
    await writeFileAtomic(path.join(this.options.runDir, relative), JSON.stringify(evidence) + '\n');
    return relative;
  }

  /** Checks the event against the gate state, writes it, then applies it. */
  private record(event: NewJournalEvent): Promise<JournalEvent> {
    return this.options.journal.append(event, (stamped) => planGateEvent(this.state, stamped));
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.mutex.then(work);
    this.mutex = run.catch(() => undefined);
    return run;
  }
}

/** A round's seed from the run seed and the journal position (31-bit, never negative). */
export function roundSeed(runSeed: number, position: number): number {
  let h = (runSeed ^ 0x9e3779b9) >>> 0;
  h = Math.imul(h ^ position, 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) & 0x7fffffff;
}
