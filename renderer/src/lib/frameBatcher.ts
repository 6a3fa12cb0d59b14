/**
 * Collects items and hands them over at most once per animation frame, so a
 * burst of events costs one store update and one render, not one per item.
 */
export function createFrameBatcher<T>(
  flush: (items: T[]) => void,
  schedule: (callback: () => void) => void = (callback) => {
    requestAnimationFrame(() => callback());
  },
): (item: T) => void {
  let pending: T[] = [];
  let scheduled = false;
  return (item) => {
    pending.push(item);
    if (scheduled) return;
    scheduled = true;
    schedule(() => {
      scheduled = false;
      const items = pending;
      pending = [];
      flush(items);
    });
  };
}
