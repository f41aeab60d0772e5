import { errorLabel } from './error-label';

/** How the libraries shape their log lines: `key=value` text, or one object per line. */
export type LogFormat = 'text' | 'json';

/** `json` makes every library log line an object (give Nest a JSON logger too); else `key=value` text. @publicApi */
export const LOG_FORMAT_ENV = 'NEST_OUTBOX_LOG_FORMAT';

/** Identifiers, counts and labels, never a payload; `error` is logged as its class and code only. @publicApi */
export interface LogFields {
  readonly event_id?: string;
  readonly aggregate_id?: string;
  readonly type?: string;
  readonly attempt?: number;
  readonly stage?: string;
  readonly error?: unknown;
  readonly [field: string]: unknown;
}

type LogObject = Readonly<Record<string, string | number | boolean>>;

/** @publicApi */
export function logFormat(env: NodeJS.ProcessEnv = process.env): LogFormat {
  return env[LOG_FORMAT_ENV]?.trim().toLowerCase() === 'json' ? 'json' : 'text';
}

// Every C0/C1 control character, DEL, the Unicode line/paragraph separators and unpaired
// UTF-16 surrogates (which a writer would turn into U+FFFD, hiding what was received).
const CONTROL =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `value` with control characters and unpaired surrogates escaped: one log line stays one line. */
export function escapeControl(value: string): string {
  return value.replace(CONTROL, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

function errorParts(error: unknown): { error_class: string; error_code?: string } {
  const label = errorLabel(error);
  const space = label.indexOf(' ');
  return space < 0
    ? { error_class: label }
    : { error_class: label.slice(0, space), error_code: label.slice(space + 1) };
}

function scalarFields(fields: LogFields): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (key === 'error') Object.assign(out, errorParts(value));
    else if (typeof value === 'number' || typeof value === 'boolean') out[key] = value;
    else if (typeof value === 'bigint') out[key] = value.toString();
    else out[key] = escapeControl(typeof value === 'string' ? value : '[' + typeof value + ']');
  }
  for (const [key, value] of Object.entries(out))
    if (typeof value === 'string' && value.length > 300) out[key] = `${value.slice(0, 300)}...`;
  return out;
}

/** `key=value` text; values with spaces or quotes are quoted (`"` escaped, nothing else again). */
function textOf(message: string, fields: Record<string, string | number | boolean>): string {
  const parts = [escapeControl(message)];
  for (const [key, value] of Object.entries(fields)) {
    const text = String(value);
    parts.push(
      /[\s"=]/.test(text) || text === ''
        ? `${key}="${text.replace(/"/g, '\\"')}"`
        : `${key}=${text}`,
    );
  }
  return parts.join(' ');
}

/**
 * One library log line as `NEST_OUTBOX_LOG_FORMAT` asks: text (`parked event_id=... attempt=5
 * error_class=KafkaJSProtocolError`) or an object for Nest's JSON logger; control characters escaped.
 * @publicApi
 */
export function logLine(
  message: string,
  fields: LogFields = {},
  format: LogFormat = logFormat(),
): string | LogObject {
  const scalars = scalarFields(fields);
  return format === 'json' ? { msg: escapeControl(message), ...scalars } : textOf(message, scalars);
}
