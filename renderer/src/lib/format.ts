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
