/**
 * The invisible calculator (docs/internals.md, "The calculator"). When the
 * model emits `<|eq|>` the engine evaluates the arithmetic expression that
 * ends right before it and forces the tokens of `" " + result`, the way
 * GSM8K's `<<48/2=24>>` annotations do — so a tiny model only has to copy
 * numbers and choose operations.
 *
 * The expression is the longest suffix of the reply built from numbers
 * (digits with optional thousands commas and decimals), spaces, parentheses
 * and the operators `+ - * / × ÷`. It is found by a backwards scan, not a
 * `$`-anchored regex, because `(\d+)+$`-style patterns backtrack
 * exponentially on long digit runs that do not end the text.
 */

const OPERATOR_CHARS = new Set(['+', '-', '*', '/', '×', '÷']);
const NUMBER_PATTERN = /^(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?$/;

function isDigit(char: string): boolean {
  return char >= '0' && char <= '9';
}

function isSeparator(char: string): boolean {
  return char === ' ' || char === '(' || char === ')' || OPERATOR_CHARS.has(char);
}

/**
 * The longest suffix of `text` made of numbers, spaces, parentheses and
 * operators, with surrounding spaces trimmed; "" when there is none.
 */
export function expressionSuffix(text: string): string {
  let start = text.length;
  while (start > 0) {
    const char = text[start - 1] as string;
    if (isSeparator(char)) {
      start -= 1;
      continue;
    }
    if (!isDigit(char)) break;
    // A run of number characters; keep its longest suffix that is a number
    // and does not start with a separator character (',' or '.').
    let runStart = start;
    while (runStart > 0) {
      const c = text[runStart - 1] as string;
      if (isDigit(c) || c === ',' || c === '.') runStart -= 1;
      else break;
    }
    let numberStart = start;
    for (let i = runStart; i < start; i += 1) {
      if (isDigit(text[i] as string) && NUMBER_PATTERN.test(text.slice(i, start))) {
        numberStart = i;
        break;
      }
    }
    start = numberStart;
    // The number ended inside a run (e.g. "x.12" → "12"): the character
    // before it is ',' or '.' (or a digit that would change its meaning),
    // so the expression stops here.
    if (numberStart !== runStart) break;
  }
  return text.slice(start).trim();
}

type Token =
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'op'; readonly op: '+' | '-' | '*' | '/' }
  | { readonly kind: 'open' }
  | { readonly kind: 'close' };

function lex(expression: string): Token[] | null {
  const tokens: Token[] = [];
  let i = 0;
  while (i < expression.length) {
    const char = expression[i] as string;
    if (char === ' ') {
      i += 1;
    } else if (char === '(') {
      tokens.push({ kind: 'open' });
      i += 1;
    } else if (char === ')') {
      tokens.push({ kind: 'close' });
      i += 1;
    } else if (char === '+' || char === '-' || char === '*' || char === '/') {
      tokens.push({ kind: 'op', op: char });
      i += 1;
    } else if (char === '×') {
      tokens.push({ kind: 'op', op: '*' });
      i += 1;
    } else if (char === '÷') {
      tokens.push({ kind: 'op', op: '/' });
      i += 1;
    } else if (isDigit(char)) {
      let end = i;
      while (end < expression.length && /[0-9,.]/.test(expression[end] as string)) end += 1;
      const literal = expression.slice(i, end);
      if (!NUMBER_PATTERN.test(literal)) return null;
      tokens.push({ kind: 'number', value: Number(literal.replaceAll(',', '')) });
      i = end;
    } else {
      return null;
    }
  }
  return tokens;
}

/**
 * Evaluates `+ - * /` with the usual precedence and parentheses. No unary
 * minus: homework arithmetic never needs it, and "apples - 3" must not
 * evaluate to -3. Returns null when it does not parse or divides by zero.
 */
export function evaluateExpression(expression: string): number | null {
  const lexed = lex(expression);
  if (lexed === null || lexed.length === 0) return null;
  const tokens: readonly Token[] = lexed;
  let pos = 0;
  let failed = false;

  const parseFactor = (): number => {
    const token = tokens[pos];
    if (token?.kind === 'number') {
      pos += 1;
      return token.value;
    }
    if (token?.kind === 'open') {
      pos += 1;
      const value = parseSum();
      if (tokens[pos]?.kind !== 'close') failed = true;
      pos += 1;
      return value;
    }
    failed = true;
    return Number.NaN;
  };
  const parseProduct = (): number => {
    let value = parseFactor();
    for (let token = tokens[pos]; !failed && token?.kind === 'op' && (token.op === '*' || token.op === '/'); token = tokens[pos]) {
      pos += 1;
      const right = parseFactor();
      if (token.op === '*') value *= right;
      else if (right === 0) failed = true;
      else value /= right;
    }
    return value;
  };
  function parseSum(): number {
    let value = parseProduct();
    for (let token = tokens[pos]; !failed && token?.kind === 'op' && (token.op === '+' || token.op === '-'); token = tokens[pos]) {
      pos += 1;
      const right = parseProduct();
      value = token.op === '+' ? value + right : value - right;
    }
    return value;
  }

  const value = parseSum();
  if (failed || pos !== tokens.length || !Number.isFinite(value)) return null;
  return value;
}

/** Integers plainly; other values to at most 4 decimals, trailing zeros dropped. */
export function formatResult(value: number): string | null {
  if (!Number.isFinite(value) || Math.abs(value) >= 1e15) return null;
  // Integers first: scaling a large integer by 1e4 would cost it precision.
  const rounded = Number.isInteger(value) ? value : Math.round(value * 1e4) / 1e4;
  if (Number.isInteger(rounded)) return (Object.is(rounded, -0) ? 0 : rounded).toFixed(0);
  return rounded.toFixed(4).replace(/0+$/, '').replace(/\.$/, '');
}

/**
 * The text the engine forces after `<|eq|>`: `" " + result` for the
 * expression ending `replyBeforeEq`, or null (force nothing).
 */
export function calculatorCompletion(replyBeforeEq: string): string | null {
  const expression = expressionSuffix(replyBeforeEq);
  if (expression === '') return null;
  const value = evaluateExpression(expression);
  if (value === null) return null;
  const result = formatResult(value);
  return result === null ? null : ` ${result}`;
}
