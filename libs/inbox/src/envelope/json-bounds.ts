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
