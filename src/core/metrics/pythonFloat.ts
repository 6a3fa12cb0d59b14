// Pure, no Node: the lab writes it (curve.csv, gate.csv) and the renderer too (exported series, through the contract).
// Reef writes its CSVs from Python, so a rate is printed as Python's repr of
// a float: the shortest digits that round-trip (like JavaScript), but always
// with a ".0" on integral values ("1.0", not "1") and with scientific notation
// below 1e-4 or from 1e16 on ("1e-05", "1e+16"). Reproducing Reef's files
// byte for byte needs exactly that format, which no kept library writes.

/** Formats a number the way Python's `repr(float(x))` does. */
export function formatPythonFloat(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Number.POSITIVE_INFINITY) return 'inf';
  if (x === Number.NEGATIVE_INFINITY) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';

  // toExponential() without an argument gives the shortest round-trip digits.
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/u.exec(x.toExponential());
  if (!match) throw new Error(`cannot format ${x}`);
  const [, sign = '', lead = '', rest = '', expText = '0'] = match;
  const digits = lead + rest;
  const exp = Number(expText);

  if (exp < -4 || exp >= 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const expAbs = String(Math.abs(exp)).padStart(2, '0');
    return `${sign}${mantissa}e${exp < 0 ? '-' : '+'}${expAbs}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intLen = exp + 1;
  if (digits.length <= intLen) return `${sign}${digits}${'0'.repeat(intLen - digits.length)}.0`;
  return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
}
