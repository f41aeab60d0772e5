/** Nesting allowed in a payload or a JSON header value by default. @internal */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/**
 * True when JSON text nests deeper than `limit`, in one linear scan without parsing: checked
 * BEFORE `JSON.parse` so no later recursive walk can run out of stack. @internal
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
 * Which bound a parsed value exceeds, if any (depth over `limit`, more than `maxNodes` values),
 * by an iterative walk. @internal
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

/** `jsonExcess` of a container of scalars without the walk's stacks; 'walk' when a child nests. */
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
