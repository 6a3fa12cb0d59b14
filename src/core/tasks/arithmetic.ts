/**
 * Evaluates the arithmetic a task's steps are written in: numbers (digits,
 * optional thousands commas and decimals), parentheses and + - * / × ÷ with the
 * usual precedence. Hand-written (a dozen lines of recursive descent) because
 * every expression library we could keep would also accept far more than the
 * steps may contain, and `eval` is not an option.
 */
export class ArithmeticError extends Error {
  override readonly name = 'ArithmeticError';
}

type Token = { kind: 'num'; value: number } | { kind: 'op'; op: '+' | '-' | '*' | '/' | '(' | ')' };

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)|([-+*/×÷()]))/y;
  let at = 0;
  while (at < expr.length) {
    if (/^\s*$/.test(expr.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(expr);
    if (!m) throw new ArithmeticError(`unexpected character at ${at} in "${expr}"`);
    at = re.lastIndex;
    if (m[1] !== undefined) {
      tokens.push({ kind: 'num', value: Number(m[1].replaceAll(',', '')) });
    } else {
      const sign = m[2] ?? '';
      const op = sign === '×' ? '*' : sign === '÷' ? '/' : sign;
      tokens.push({ kind: 'op', op: op as '+' | '-' | '*' | '/' | '(' | ')' });
    }
  }
  return tokens;
}

/** The value of `expr`; throws ArithmeticError on bad syntax or a division by zero. */
export function evaluate(expr: string): number {
  const tokens = tokenize(expr);
  let i = 0;
  const peekOp = (): string | undefined => {
    const t = tokens[i];
    return t?.kind === 'op' ? t.op : undefined;
  };
  const primary = (): number => {
    const t = tokens[i];
    if (t === undefined) throw new ArithmeticError(`expression ends early: "${expr}"`);
    if (t.kind === 'num') {
      i++;
      return t.value;
    }
    if (t.op === '(') {
      i++;
      const v = sum();
      if (peekOp() !== ')') throw new ArithmeticError(`missing ")" in "${expr}"`);
      i++;
      return v;
    }
    throw new ArithmeticError(`unexpected "${t.op}" in "${expr}"`);
  };
  const product = (): number => {
    let v = primary();
    for (let op = peekOp(); op === '*' || op === '/'; op = peekOp()) {
      i++;
      const rhs = primary();
      if (op === '/' && rhs === 0) throw new ArithmeticError(`division by zero in "${expr}"`);
      v = op === '*' ? v * rhs : v / rhs;
    }
    return v;
  };
  const sum = (): number => {
    let v = product();
    for (let op = peekOp(); op === '+' || op === '-'; op = peekOp()) {
      i++;
      const rhs = product();
      v = op === '+' ? v + rhs : v - rhs;
    }
    return v;
  };
  if (tokens.length === 0) throw new ArithmeticError('empty expression');
  const value = sum();
  if (i !== tokens.length) throw new ArithmeticError(`trailing input in "${expr}"`);
  return value;
}
