import type { ClaimedRow } from '../claim/claimed-batch';

/** `YYYY...-MM-DD HH:MM:SS[.f] +HH[:MM[:SS]] [BC]`: a timestamptz in DateStyle ISO. */
const ISO =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?( BC)?$/;

/**
 * Epoch milliseconds (rounded down) of a timestamptz as PostgreSQL prints it in DateStyle ISO,
 * infinities included: what polling mode reads as `floor(extract(epoch FROM t) * 1000)`.
 * @internal
 */
export function timestampMs(text: string): number {
  if (text === 'infinity') return Infinity;
  if (text === '-infinity') return -Infinity;
  const m = ISO.exec(text);
  if (!m) return NaN;
  const [, y, mo, d, h, mi, s, frac = '', sign, oh, om = '0', os = '0', bc] = m;
  const date = new Date(0);
  date.setUTCFullYear(bc ? 1 - Number(y) : Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  const offsetMs = (Number(oh) * 3600 + Number(om) * 60 + Number(os)) * 1000;
  const micros = Number(frac.padEnd(6, '0'));
  return date.getTime() - (sign === '-' ? -offsetMs : offsetMs) + Math.floor(micros / 1000);
}

/**
 * An outbox row of the WAL stream (every column as its text output, NULL as null) as the relay
 * publishes it: the payload exactly as stored, like polling mode.
 * @internal
 */
export function walRow(tuple: Readonly<Record<string, string | null>>): ClaimedRow {
  const text = (column: string) => tuple[column] ?? '';
  return {
    id: text('id'),
    eventId: text('event_id'),
    eventType: text('event_type'),
    schemaVersion: Number(text('schema_version')),
    aggregateType: text('aggregate_type'),
    aggregateId: text('aggregate_id'),
    aggregateVersion: text('aggregate_version'),
    occurredAtMs: timestampMs(text('occurred_at')),
    createdAtMs: timestampMs(text('created_at')),
    payload: text('payload'),
    headers: tuple.headers == null ? null : (JSON.parse(tuple.headers) as unknown),
    topic: tuple.topic ?? null,
    attempts: 0,
    suspect: false,
  };
}
