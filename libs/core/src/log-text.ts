const UNSAFE =
  // eslint-disable-next-line no-control-regex -- control characters are what it escapes
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\\]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeOne(char: string): string {
  if (char === '\\') return '\\\\';
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * A string that came from outside, made safe for one log line: control characters (C0, DEL,
 * C1), the Unicode line and paragraph separators and unpaired UTF-16 surrogates are escaped
 * as `\xNN` / `\uNNNN` and a backslash is doubled, so a newline in a header can never forge a
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
  const escaped = cut.replace(UNSAFE, escapeOne);
  return value.length > max ? `${escaped}…(+${value.length - max})` : escaped;
}
