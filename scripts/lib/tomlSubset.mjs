// Reads the small part of TOML that ruff.toml uses: `[table]` and `[table.sub]`
// headers, `key = value` with a string, an integer, a boolean or an array of
// those (over one line or several), and `#` comments. Anything else is an error naming the line,
// so a setting this reader cannot follow is never silently dropped. (No TOML
// package is installed; ruff's own CLI reads the same file in full.)

/**
 * @param {string} text
 * @param {string} name the file's name, for errors
 * @returns {Record<string, unknown>}
 */
export function parseTomlSubset(text, name) {
  /** @type {Record<string, unknown>} */
  const root = {};
  let table = root;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const fail = (why) => {
      throw new Error(`${name}:${i + 1}: ${why} (scripts/lib/tomlSubset.mjs reads only a subset of TOML)`);
    };
    const line = stripComment(lines[i] ?? '').trim();
    if (line === '') continue;
    const header = /^\[([A-Za-z0-9_.-]+)\]$/.exec(line);
    if (header) {
      table = root;
      for (const part of (header[1] ?? '').split('.')) {
        const next = table[part] ?? {};
        if (typeof next !== 'object' || Array.isArray(next)) fail(`[${header[1]}] names a value, not a table`);
        table[part] = next;
        table = /** @type {Record<string, unknown>} */ (next);
      }
      continue;
    }
    const pair = /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line);
    if (!pair) fail('expected `key = value` or a `[table]` header');
    const key = pair[1] ?? '';
    if (key in table) fail(`${key} is set twice`);
    let raw = (pair[2] ?? '').trim();
    if (raw.startsWith('[')) {
      // An array may run over several lines, up to the line that closes it.
      while (!raw.endsWith(']') && i + 1 < lines.length) {
        i += 1;
        raw = `${raw} ${stripComment(lines[i] ?? '').trim()}`.trim();
      }
      if (!raw.endsWith(']')) fail('an array that never closes');
      const inner = raw.slice(1, -1).trim();
      table[key] = inner === '' ? [] : splitArray(inner).map((item) => scalar(item.trim(), fail));
    } else {
      table[key] = scalar(raw, fail);
    }
  }
  return root;
}

/** The line without its `#` comment (a `#` inside a string stays). */
function stripComment(line) {
  let quote = null;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i];
    if (quote !== null) {
      if (c === '\\' && quote === '"') i += 1;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#') return line.slice(0, i);
  }
  return line;
}

/** An array's items, split at the commas outside strings (a trailing comma allowed). */
function splitArray(inner) {
  const items = [];
  let quote = null;
  let start = 0;
  for (let i = 0; i < inner.length; i += 1) {
    const c = inner[i];
    if (quote !== null) {
      if (c === '\\' && quote === '"') i += 1;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ',') {
      items.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  const last = inner.slice(start);
  if (last.trim() !== '') items.push(last);
  return items;
}

function scalar(raw, fail) {
  if (/^"(?:[^"\\]|\\["\\])*"$/.test(raw)) return raw.slice(1, -1).replace(/\\(["\\])/g, '$1');
  if (/^'[^']*'$/.test(raw)) return raw.slice(1, -1);
  if (/^[+-]?\d+$/.test(raw)) return Number(raw);
  if (raw === 'true' || raw === 'false') return raw === 'true';
  return fail(`cannot read the value ${raw}`);
}
