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
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (++nodes > maxNodes) return true;
    if (typeof v !== 'object' || v === null || Buffer.isBuffer(v)) continue;
    if (depth + 1 > limit) return true;
    const children: unknown[] = Array.isArray(v) ? v : Object.values(v);
    for (const child of children) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}
