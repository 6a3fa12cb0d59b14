import { useEffect, useState } from 'react';

/** The current time (ms), re-read every `everyMs` while `active` — a clock for lines that count up. */
export function useNow(everyMs: number, active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    // The clock is an outside system: re-read it at once when the line starts or stops counting.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setNow(Date.now());
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs, active]);
  return now;
}
