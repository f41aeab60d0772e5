// eslint-disable-next-line no-control-regex -- NUL is what PostgreSQL refuses in text and jsonb
const REFUSED = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text PostgreSQL accepts in `text` and `jsonb`: NUL and unpaired surrogates become their JSON
 * escape (`\u0000`), at most `max` characters. @internal
 */
export function pgText(value: string, max: number): string {
  const cut = value.length > max ? value.slice(0, max) : value;
  return cut.replace(REFUSED, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** At most this many headers, names and values this long, go to the `headers` jsonb. */
const MAX_HEADERS = 100;
const MAX_NAME = 200;
const MAX_VALUE = 1000;

/** Headers through `pgText`, at most 100 (`x-inbox-omitted-headers` counts the rest). @internal */
export function pgHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = Object.entries(headers);
  for (const [name, value] of entries.slice(0, MAX_HEADERS))
    out[pgText(name, MAX_NAME)] = pgText(value, MAX_VALUE);
  if (entries.length > MAX_HEADERS)
    out['x-inbox-omitted-headers'] = String(entries.length - MAX_HEADERS);
  return out;
}
