/** Nesting allowed in a payload or a JSON header value by default. @internal */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/**
 * True when JSON text nests deeper than `limit` (arrays and objects), found in one linear
 * scan without recursion and without parsing: what to check BEFORE `JSON.parse` so that no
 * later recursive walk (a handler, `JSON.stringify`, a driver) can run out of stack.
 * Brackets inside strings do not count.
 * @internal
 */
export function jsonTextTooDeep(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * True when an already parsed value (Nest's KafkaParser JSON-parses values and headers that
 * start with `{` or `[`) nests deeper than `limit` or holds more than `maxNodes` values: an
 * iterative walk with an explicit stack that stops at the first excess.
 * @internal
 */
export function valueTooDeep(value: unknown, limit: number, maxNodes: number): boolean {
  if (!isContainer(value)) return 1 > maxNodes;
  const flat = flatTooDeep(value, limit, maxNodes);
  if (flat !== undefined) return flat;
  // Two parallel stacks (value, depth): no object allocated per node walked.
  const values: unknown[] = [value];
  const depths: number[] = [0];
  let nodes = 0;
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (++nodes > maxNodes) return true;
    if (typeof v !== 'object' || v === null || Buffer.isBuffer(v)) continue;
    if (depth + 1 > limit) return true;
    if (Array.isArray(v)) {
      for (const child of v as unknown[]) {
        values.push(child);
        depths.push(depth + 1);
      }
    } else {
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        values.push((v as Record<string, unknown>)[key]);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

const isContainer = (v: unknown): v is object =>
  typeof v === 'object' && v !== null && !Buffer.isBuffer(v);

/**
 * `valueTooDeep` of an array or object whose children are all scalars (most event payloads),
 * found without allocating the walk's stacks; undefined as soon as a child is itself an
 * array or object (the walk decides).
 */
function flatTooDeep(value: object, limit: number, maxNodes: number): boolean | undefined {
  if (1 > maxNodes || limit < 1) return true;
  let nodes = 1;
  if (Array.isArray(value)) {
    for (const child of value as unknown[]) {
      if (isContainer(child)) return undefined;
      if (++nodes > maxNodes) return true;
    }
  } else {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      if (isContainer((value as Record<string, unknown>)[key])) return undefined;
      if (++nodes > maxNodes) return true;
    }
  }
  return false;
}
