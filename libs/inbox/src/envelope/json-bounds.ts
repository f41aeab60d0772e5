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

/** Which bound a parsed JSON value exceeds: its nesting or its count of values. @internal */
export type JsonExcess = 'depth' | 'nodes';

/**
 * Which bound an already parsed value (Nest's KafkaParser JSON-parses values and headers that
 * start with `{` or `[`) exceeds, if any: nesting deeper than `limit` or more than `maxNodes`
 * values. An iterative walk with an explicit stack that stops at the first excess.
 * @internal
 */
export function jsonExcess(
  value: unknown,
  limit: number,
  maxNodes: number,
): JsonExcess | undefined {
  if (!isContainer(value)) return 1 > maxNodes ? 'nodes' : undefined;
  const flat = flatExcess(value, limit, maxNodes);
  if (flat !== 'walk') return flat;
  // Two parallel stacks (value, depth): no object allocated per node walked.
  const values: unknown[] = [value];
  const depths: number[] = [0];
  let nodes = 0;
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (++nodes > maxNodes) return 'nodes';
    if (typeof v !== 'object' || v === null || Buffer.isBuffer(v)) continue;
    if (depth + 1 > limit) return 'depth';
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
  return undefined;
}

const isContainer = (v: unknown): v is object =>
  typeof v === 'object' && v !== null && !Buffer.isBuffer(v);

/**
 * `jsonExcess` of an array or object whose children are all scalars (most event payloads),
 * found without allocating the walk's stacks; 'walk' as soon as a child is itself an array
 * or object (the walk decides).
 */
function flatExcess(
  value: object,
  limit: number,
  maxNodes: number,
): JsonExcess | 'walk' | undefined {
  if (1 > maxNodes) return 'nodes';
  if (limit < 1) return 'depth';
  let nodes = 1;
  if (Array.isArray(value)) {
    for (const child of value as unknown[]) {
      if (isContainer(child)) return 'walk';
      if (++nodes > maxNodes) return 'nodes';
    }
  } else {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      if (isContainer((value as Record<string, unknown>)[key])) return 'walk';
      if (++nodes > maxNodes) return 'nodes';
    }
  }
  return undefined;
}
