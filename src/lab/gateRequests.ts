// A person's requests to the gate of the run on screen — confirm, reject,
// inject, roll back — and what the page reads of its evidence (a probe
// round's paired replies, a session's whole transcript). The gate decides;
// these say what was asked, what served before and after, and log it.
import type { BadCandidateKind, CandidateView, InjectionView, ProbePair, RunView, ServingPointerView, TranscriptView } from '../contract';
import { isSettling, LabError } from '../contract';
import type { LiveRun } from '../run/liveRun';
import { statusFromEvents } from '../run/runStatus';
import type { ControlRequest } from '../surfaces/control/controlServer';
import type { OpenRun } from './openRun';
import { readProbeRound } from './probeEvidence';
import type { RequestRoute } from './requestRouting';
import { readTranscriptFile, transcriptView } from './sessionTranscript';

export type Decision = { candidate: CandidateView; servingBefore: ServingPointerView; servingAfter: ServingPointerView };

export type GateRequestDeps = {
  /** The run on screen (refusing when none is). */
  current: () => OpenRun;
  /** Sends a request to where the run's gate decides (requestRouting.ts). */
  route: <T>(run: OpenRun, request: ControlRequest, route: RequestRoute<T>) => Promise<T>;
  view: (run: OpenRun) => RunView;
  log: (line: string) => void;
};

export class GateRequests {
  constructor(private readonly deps: GateRequestDeps) {}

  confirm(id: string): Promise<Decision> {
    return this.decide({ action: 'confirm', id }, id);
  }

  reject(id: string, reason: string): Promise<Decision> {
    return this.decide({ action: 'reject', id, reason }, id);
  }

  /** Queues an injection request and answers at once; the candidate is built in the background (injectionQueue.ts). */
  async inject(kind: BadCandidateKind): Promise<{ injection: InjectionView; servingBefore: ServingPointerView }> {
    const c = this.deps.current();
    if (isSettling(c.phase)) throw new LabError('conflict', `the run is ${c.phase}; inject once it has ${c.phase === 'starting' ? 'started' : 'stopped'}`);
    const before = pointerOf(c);
    const injection = c.injections.request(kind, before);
    this.deps.log(
      injection.state === 'building'
        ? `Injection ${injection.id}: building a ${kind} candidate; serving is ${before.version}. The gate decides.`
        : `Injection ${injection.id} (${kind}) queued: ${(injection.queuePosition ?? 0) + 1} in line behind the one being built.`,
    );
    return { injection, servingBefore: before };
  }

  async rollback(version: string): Promise<{ servingBefore: ServingPointerView; servingAfter: ServingPointerView }> {
    const before = pointerOf(this.deps.current());
    await this.deps.route(
      this.deps.current(),
      { action: 'rollback', version },
      { here: async (run: LiveRun) => run.rollback(version), there: () => undefined },
    );
    const after = pointerOf(this.deps.current());
    this.deps.log(`Rolled serving back: ${before.version} → ${after.version}.`);
    return { servingBefore: before, servingAfter: after };
  }

  async probeReplies(
    candidate: string,
    round: number,
  ): Promise<{ candidate: string; round: number; seed: number; servingVersion: string; pairs: ProbePair[] }> {
    const c = this.deps.current();
    const event = c.events.find((e) => e.type === 'probe-round' && e.id === candidate && e.round === round);
    if (!event || event.type !== 'probe-round') throw new LabError('not-found', `no probe round ${round} of ${candidate} in this run`);
    const evidence = await readProbeRound(c.runDir, event.replies);
    return { candidate, round, seed: evidence.seed, servingVersion: evidence.servingVersion, pairs: evidence.pairs };
  }

  async transcript(session: number): Promise<TranscriptView> {
    const c = this.deps.current();
    const event = c.events.find((e) => e.type === 'session-completed' && e.session === session);
    if (!event || event.type !== 'session-completed') throw new LabError('not-found', `session ${session} of this run has not completed`);
    try {
      return transcriptView(event, await readTranscriptFile(c.runDir, event));
    } catch (error) {
      throw new LabError('not-found', (error as Error).message);
    }
  }

  private async decide(request: Extract<ControlRequest, { action: 'confirm' | 'reject' }>, id: string): Promise<Decision> {
    const before = pointerOf(this.deps.current());
    await this.deps.route(this.deps.current(), request, {
      here: async (run: LiveRun) => (request.action === 'confirm' ? run.confirm(id) : run.reject(id, request.reason)),
      there: () => undefined,
    });
    const candidate = this.candidateView(id);
    const after = pointerOf(this.deps.current());
    this.deps.log(
      request.action === 'confirm'
        ? `${id} confirmed by a person: ${candidate.state}; serving ${before.version} → ${after.version}.`
        : `${id} rejected by a person; serving stays ${after.version}.`,
    );
    return { candidate, servingBefore: before, servingAfter: after };
  }

  private candidateView(id: string): CandidateView {
    const view = this.deps.view(this.deps.current()).candidates.find((x) => x.id === id);
    if (!view) throw new LabError('not-found', `no candidate ${id} in this run`);
    return view;
  }
}

function pointerOf(c: OpenRun): ServingPointerView {
  const p = statusFromEvents(c.events).serving;
  return { version: p.version, sha256: p.sha256 };
}
