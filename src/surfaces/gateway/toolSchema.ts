/**
 * A structural check of a function tool's `parameters` (a JSON Schema), so a
 * malformed schema is a clear 400 naming the spot instead of an engine
 * failing mid-request (vLLM compiles it into a grammar for forced calls).
 *
 * OpenAI's own rule first: the top level describes an object. Below it, the
 * keywords whose shape we can check without a full validator: `type` names
 * JSON Schema types, `properties` maps names to schemas, `items` is a
 * schema, `required` and `enum` are arrays, `anyOf`/`oneOf`/`allOf` are
 * arrays of schemas. Other keywords pass through untouched.
 */

const jsonTypes = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Null when the schema is acceptable; else what is wrong and where. */
export function functionParametersIssue(parameters: Record<string, unknown>): string | null {
  const type = parameters['type'];
  if (type !== undefined && type !== 'object') {
    return `schema must be a JSON Schema of 'type: "object"', got 'type: ${JSON.stringify(type)}'`;
  }
  return schemaIssue(parameters, 'parameters', 0);
}

const MAX_DEPTH = 32;

function schemaIssue(schema: unknown, at: string, depth: number): string | null {
  // `true`/`false` are valid schemas (anything / nothing).
  if (typeof schema === 'boolean') return null;
  if (!isObject(schema)) return `${at} must be a JSON Schema object`;
  if (depth > MAX_DEPTH) return `${at} nests deeper than ${MAX_DEPTH} levels`;

  const type = schema['type'];
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    const unknown = types.find((t) => typeof t !== 'string' || !jsonTypes.has(t));
    if (types.length === 0 || unknown !== undefined)
      return `${at}.type must name JSON Schema types (${[...jsonTypes].join(', ')}), got ${JSON.stringify(type)}`;
  }
  const properties = schema['properties'];
  if (properties !== undefined) {
    if (!isObject(properties)) return `${at}.properties must be an object`;
    for (const [name, property] of Object.entries(properties)) {
      const issue = schemaIssue(property, `${at}.properties.${name}`, depth + 1);
      if (issue) return issue;
    }
  }
  const required = schema['required'];
  if (required !== undefined && (!Array.isArray(required) || !required.every((r) => typeof r === 'string'))) {
    return `${at}.required must be an array of property names`;
  }
  const enumValues = schema['enum'];
  if (enumValues !== undefined && !Array.isArray(enumValues)) return `${at}.enum must be an array`;
  const items = schema['items'];
  if (items !== undefined) {
    const issue = schemaIssue(items, `${at}.items`, depth + 1);
    if (issue) return issue;
  }
  const additional = schema['additionalProperties'];
  if (additional !== undefined) {
    const issue = schemaIssue(additional, `${at}.additionalProperties`, depth + 1);
    if (issue) return issue;
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[keyword];
    if (branches === undefined) continue;
    if (!Array.isArray(branches) || branches.length === 0) return `${at}.${keyword} must be a non-empty array of schemas`;
    for (const [i, branch] of branches.entries()) {
      const issue = schemaIssue(branch, `${at}.${keyword}.${i}`, depth + 1);
      if (issue) return issue;
    }
  }
  for (const keyword of ['$defs', 'definitions'] as const) {
    const defs = schema[keyword];
    if (defs === undefined) continue;
    if (!isObject(defs)) return `${at}.${keyword} must be an object`;
    for (const [name, def] of Object.entries(defs)) {
      const issue = schemaIssue(def, `${at}.${keyword}.${name}`, depth + 1);
      if (issue) return issue;
    }
  }
  return null;
}
