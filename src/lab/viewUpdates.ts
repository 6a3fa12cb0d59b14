// Update batching for the run on screen: journal events arriving together
// become one update. A change marks the view dirty; one send goes out
// `batchMs` later (or at once on `flush`, after a person's request), and a
// change during a send schedules the next — never two sends at once.

export class ViewUpdates {
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** A send in progress. */
  private sending: Promise<void> | null = null;
  private dirty = false;

  constructor(
    private readonly batchMs: number,
    private readonly send: () => Promise<void>,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Gathers changes for `batchMs`, then sends one update. */
  mark(): void {
    this.dirty = true;
    if (this.timer || this.sending) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.batchMs);
  }

  /** Sends what is pending now (after a send in progress). */
  async flush(): Promise<void> {
    this.cancel();
    while (this.sending) await this.sending;
    if (!this.dirty) return;
    this.sending = (async () => {
      this.dirty = false;
      try {
        await this.send();
      } catch (error) {
        this.onError(error as Error);
      }
    })();
    await this.sending;
    this.sending = null;
    if (this.dirty) this.mark();
  }

  /** Drops a scheduled send (the run leaves the screen, or the lab closes). */
  cancel(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }
}
