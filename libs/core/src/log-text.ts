const UNSAFE =
  // eslint-disable-next-line no-control-regex -- control characters are what it escapes
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\\]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const SHORT: Readonly<Record<string, string>> = {
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\\': '\\\\',
};

function escapeOne(char: string): string {
  return SHORT[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `value` with what could break or forge a log line escaped: control characters (C0, DEL, C1)
 * as `\n`, `\r`, `\t` or `\uNNNN`, the Unicode line and paragraph separators and unpaired
 * UTF-16 surrogates as `\uNNNN`, and a backslash doubled (so an escape in the input cannot pass
 * for one of ours). The one escaping rule of every library log line.
 * @publicApi
 */
export function escapeControl(value: string): string {
  return value.replace(UNSAFE, escapeOne);
}

/**
 * A string that came from outside, made safe for one log line: control characters (C0, DEL,
 * C1), the Unicode line and paragraph separators and unpaired UTF-16 surrogates are escaped
 * (`escapeControl`), so a newline in a header can never forge a
 * log line; at most `max` characters are kept (`…(+N)` says how many were cut). Anything that
 * is not a string is shown by its type, never its content.
 * @example
 * logger.warn(`rejected record type=${logText(headers.event_type)}`);
 * @publicApi
 */
export function logText(value: unknown, max = 200): string {
  if (value === undefined || value === null) return '-';
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
    return String(value);
  if (typeof value !== 'string') return `[${typeof value}]`;
  const cut = value.length > max ? value.slice(0, max) : value;
  const escaped = escapeControl(cut);
  return value.length > max ? `${escaped}…(+${value.length - max})` : escaped;
}
