import { DEFAULT_MAX_JSON_DEPTH, jsonExcess } from './json-bounds';

/** A record as Nest's KafkaParser hands it over (value already decoded unless keepBinary). */
export interface ParsedRecord {
  readonly key?: unknown;
  readonly value?: unknown;
  readonly headers?: Record<string, unknown>;
}

/** What a header value nested too deep to show becomes in `headerStrings`. @internal */
export const TOO_DEEP_HEADER = '[json nested too deep]';

/** Node budget of one JSON header value walked before it is stringified. */
const HEADER_NODES = 100_000;
/** Deepest parsed value `valueBytes` serialises again (well within the stack). */
const SERIALISE_DEPTH = 1_000;

/** A parsed JSON value back to text, or undefined when it cannot be walked safely. */
function jsonText(value: unknown): string | undefined {
  if (jsonExcess(value, DEFAULT_MAX_JSON_DEPTH, HEADER_NODES)) return undefined;
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/**
 * Headers as strings whatever Nest's parser made of them (parsed JSON back to text, or
 * `TOO_DEEP_HEADER` when too deep). Never throws. @internal
 */
export function headerStrings(raw: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in raw) {
    if (!Object.hasOwn(raw, name)) continue;
    const value = raw[name];
    const first: unknown = Array.isArray(value) && !Buffer.isBuffer(value) ? value[0] : value;
    if (first === undefined || first === null) continue;
    if (typeof first === 'string') out[name] = first;
    else if (Buffer.isBuffer(first)) out[name] = first.toString();
    else out[name] = jsonText(first) ?? TOO_DEEP_HEADER;
  }
  return out;
}

/**
 * The record value as bytes (exact when binary, else UTF-8 or re-serialised JSON: check its
 * depth first), undefined when absent or not serialisable. @internal
 */
export function valueBytes(value: unknown): Buffer | undefined {
  if (value === undefined || value === null) return undefined;
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'string') return Buffer.from(value);
  if (jsonExcess(value, SERIALISE_DEPTH, Number.MAX_SAFE_INTEGER)) return undefined;
  try {
    return Buffer.from(JSON.stringify(value));
  } catch {
    return undefined;
  }
}

/**
 * The length `valueBytes` would give, without the buffer; `depthChecked` bounds the parsed
 * value's known depth. @internal
 */
export function valueByteLength(value: unknown, depthChecked?: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (Buffer.isBuffer(value)) return value.length;
  if (typeof value === 'string') return Buffer.byteLength(value);
  const bounded = depthChecked !== undefined && depthChecked <= SERIALISE_DEPTH;
  if (!bounded && jsonExcess(value, SERIALISE_DEPTH, Number.MAX_SAFE_INTEGER)) return undefined;
  try {
    const text = JSON.stringify(value) as string | undefined;
    return text === undefined ? undefined : Buffer.byteLength(text);
  } catch {
    return undefined;
  }
}
