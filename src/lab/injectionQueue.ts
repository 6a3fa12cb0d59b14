// A person's injection requests on the run on screen. Building a bad
// candidate can take a minute (reward-inverted and collapsed run real
// gradient steps), so it must never hold the page: each request answers at
// once, the builds run in the background one at a time in the order asked,
// and every request is on screen — queued (with its place), building,
// staged (the gate takes it from there) or failed (with why). More than
// MAX_QUEUED_INJECTIONS waiting is refused with the reason, never dropped.
//
// Requests live as long as the run stays on screen in this lab; the
// candidates they made are in the journal like any other.
import type { BadCandidateKind, InjectionView, ServingPointerView } from '../contract';
import { LabError, MAX_QUEUED_INJECTIONS } from '../contract';

/** Finished requests kept on screen (the candidates themselves stay in the gate's list). */
const KEEP_FINISHED = 12;

export type InjectionBuilder = (kind: BadCandidateKind) => Promise<string>;

export class InjectionQueue {
  private readonly items: InjectionView[] = [];
  private nextId = 1;
  private pumping: Promise<void> | undefined;

  /**
   * @param build builds and stages one candidate, resolving with its id
   * @param onChange called after every change of a request's state
   */
  constructor(
    private readonly build: InjectionBuilder,
    private readonly onChange: (injection: InjectionView) => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Queues a request, or refuses it (LabError `conflict`) when the queue is full. */
  request(kind: BadCandidateKind, servingBefore: ServingPointerView): InjectionView {
    const waiting = this.items.filter((i) => i.state === 'queued').length;
    if (waiting >= MAX_QUEUED_INJECTIONS) {
      throw new LabError(
        'conflict',
        `${waiting} injections are already waiting behind the one being built; wait until one has been built before asking for another`,
      );
    }
    const injection: InjectionView = {
      id: `i${this.nextId++}`,
      kind,
      state: 'queued',
      queuePosition: null,
      requestedAt: this.now().toISOString(),
      startedAt: null,
      finishedAt: null,
      candidate: null,
      error: null,
      servingBefore,
    };
    this.items.push(injection);
    this.renumber();
    this.onChange(injection);
    this.pumping ??= this.pump().finally(() => {
      this.pumping = undefined;
    });
    return { ...injection };
  }

  /** Every request still on screen, oldest first (copies). */
  list(): InjectionView[] {
    return this.items.map((i) => ({ ...i }));
  }

  /** Resolves when nothing is queued or building. */
  async idle(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  /** Fails every request not yet started (the run left the screen); the one building finishes or fails on its own. */
  cancelWaiting(reason: string): void {
    for (const item of this.items) if (item.state === 'queued') this.finish(item, { error: reason });
    this.renumber();
  }

  private async pump(): Promise<void> {
    for (let item = this.items.find((i) => i.state === 'queued'); item; item = this.items.find((i) => i.state === 'queued')) {
      item.state = 'building';
      item.startedAt = this.now().toISOString();
      this.renumber();
      this.onChange(item);
      try {
        this.finish(item, { candidate: await this.build(item.kind) });
      } catch (error) {
        this.finish(item, { error: error instanceof Error ? error.message : String(error) });
      }
    }
  }

  private finish(item: InjectionView, outcome: { candidate: string } | { error: string }): void {
    item.finishedAt = this.now().toISOString();
    if ('candidate' in outcome) {
      item.state = 'staged';
      item.candidate = outcome.candidate;
    } else {
      item.state = 'failed';
      item.error = outcome.error;
    }
    this.onChange(item);
    const finished = this.items.filter((i) => i.state === 'staged' || i.state === 'failed');
    for (const old of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.items.splice(this.items.indexOf(old), 1);
  }

  private renumber(): void {
    let position = 0;
    for (const item of this.items) item.queuePosition = item.state === 'queued' ? position++ : null;
  }
}
