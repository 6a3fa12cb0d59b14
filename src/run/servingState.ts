/**
 * Which version serves, and the swap between requests (docs/design.md, invariant 5).
 *
 * Requests hold a lease for their whole life. A swap is a writer in a
 * readers–writer lock with writer preference: from the moment a swap is
 * asked for, new requests wait (they do not fail); the blob's hash is
 * checked, the in-flight requests finish on the version they started with,
 * the engine loads and re-checks the new adapter, and the waiting requests
 * start on the new version. A failed swap leaves the previous version
 * serving (fail closed) and rejects with the reason.
 *
 * The only way to change the version is `swapTo`, which the gate calls after
 * `promote` or `rollback` has written the pointer.
 */
import { BASE_VERSION, verifyAdapterBlob } from '../core/weights/adapterBlob';
import type { AdapterRef, EngineClient } from '../core/protocols/engineProtocol';

export type ServingVersion = { version: string; sha256: string | null };

export type ServingLease = {
  /** The version this request runs on, fixed when the lease was taken. */
  readonly serving: ServingVersion;
  release(): void;
};

export class ServingState {
  #current: ServingVersion;
  #inFlight = 0;
  /** Swaps asked for and not finished; while any is pending, new leases wait. */
  #pendingSwaps = 0;
  #swapsSettled: Promise<void> = Promise.resolve();
  #settleSwaps: () => void = () => undefined;
  #onDrained: (() => void) | null = null;
  /** Swaps run one after another, in the order they were asked for. */
  #swapQueue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly engine: EngineClient,
    initial: ServingVersion,
    /** The base model's hash, reported when the base serves (null when unknown). */
    private readonly baseSha256: string | null = null,
  ) {
    this.#current = initial;
  }

  get current(): ServingVersion {
    return this.#current;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  async acquire(): Promise<ServingLease> {
    while (this.#pendingSwaps > 0) await this.#swapsSettled;
    this.#inFlight += 1;
    const serving = this.#current;
    let released = false;
    return {
      serving,
      release: () => {
        if (released) return;
        released = true;
        this.#inFlight -= 1;
        if (this.#inFlight === 0) this.#onDrained?.();
      },
    };
  }

  /**
   * Serve `target` (null = the base model). From this call on, new requests
   * wait for the outcome: they start on `target` if the swap succeeds, on the
   * previous version if it fails.
   */
  swapTo(target: AdapterRef | null): Promise<ServingVersion> {
    if (this.#pendingSwaps === 0) {
      this.#swapsSettled = new Promise<void>((resolve) => (this.#settleSwaps = resolve));
    }
    this.#pendingSwaps += 1;
    const swap = this.#swapQueue.then(() => this.#swap(target));
    const settled = swap.then(
      () => undefined,
      () => undefined,
    );
    this.#swapQueue = settled;
    void settled.then(() => {
      this.#pendingSwaps -= 1;
      if (this.#pendingSwaps === 0) this.#settleSwaps();
    });
    return swap;
  }

  async #swap(target: AdapterRef | null): Promise<ServingVersion> {
    // Check the bytes before the engine is involved; it re-checks them itself.
    if (target) await verifyAdapterBlob(target);
    await this.#drain();
    const expected = target?.version ?? BASE_VERSION;
    const loaded = await this.engine.setAdapter(target);
    if (loaded !== expected) {
      throw new Error(`the engine reports version ${JSON.stringify(loaded)} after loading ${JSON.stringify(expected)}`);
    }
    this.#current = { version: expected, sha256: target?.sha256 ?? this.baseSha256 };
    return this.#current;
  }

  #drain(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#onDrained = () => {
        this.#onDrained = null;
        resolve();
      };
    });
  }
}
