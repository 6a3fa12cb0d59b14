/**
 * The last `capacity` items of an endless stream (a worker's output lines),
 * in a fixed array: a worker that prints without pause costs the lab the
 * same memory as one that prints nothing but a little.
 */
export class LineRing<T> {
  private readonly items: (T | undefined)[];
  /** Where the next item goes. */
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`a ring holds at least one item, not ${capacity}`);
    this.items = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    this.items[this.next] = item;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count += 1;
  }

  get size(): number {
    return this.count;
  }

  /** The kept items, oldest first. */
  toArray(): T[] {
    const start = (this.next - this.count + this.capacity) % this.capacity;
    const out: T[] = [];
    for (let i = 0; i < this.count; i += 1) out.push(this.items[(start + i) % this.capacity] as T);
    return out;
  }

  /** The newest `n` items, oldest first. */
  last(n: number): T[] {
    const all = this.toArray();
    return n >= all.length ? all : all.slice(all.length - Math.max(0, n));
  }
}
