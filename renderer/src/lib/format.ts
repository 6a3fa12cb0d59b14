/** 0.8333 → "83%"; null → "—". */
export function percent(value: number | null, digits = 0): string {
  return value === null ? '—' : `${(value * 100).toFixed(digits)}%`;
}

/** A rate as the table shows it: two decimals, the raw value kept for the tooltip. */
export function rate(value: number): string {
  return value.toFixed(2);
}

export function shortHash(sha256: string): string {
  return sha256.slice(0, 12);
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** A value as exactly as a double can be written: the shortest digits that read back as the same number ("0.7", not "70%"). */
export function exactValue(value: number): string {
  return String(value);
}

/** An uptime or age in seconds as a person reads it: "42 s", "3 min 05 s", "2 h 07 min". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}
