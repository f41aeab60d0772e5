import { EVENT_HEADERS, isUuid, type EventEnvelope } from '@nest-outbox/core';

/** Why a record was rejected before its handler ran. @publicApi */
export type RejectionCode =
  | 'not_json'
  | 'missing_header'
  | 'invalid_header'
  | 'invalid_event_id'
  | 'unknown_event_type'
  | 'unsupported_schema_version'
  | 'oversize'
  | 'handler_failed';

/** The outcome of decoding one record: an envelope or a reason. @publicApi */
export type DecodeResult =
  | { readonly ok: true; readonly envelope: EventEnvelope; readonly bytes: number }
  | { readonly ok: false; readonly code: RejectionCode; readonly reason: string };

/** What the decoder checks against. @internal */
export interface DecodeRules {
  readonly eventTypes: ReadonlySet<string> | undefined;
  readonly schemaVersions: ReadonlySet<number> | undefined;
  readonly maxMessageBytes: number;
}

/** A record as Nest's KafkaParser hands it over (value already decoded unless keepBinary). */
export interface ParsedRecord {
  readonly key?: unknown;
  readonly value?: unknown;
  readonly headers?: Record<string, unknown>;
}

const REQUIRED = [
  EVENT_HEADERS.eventId,
  EVENT_HEADERS.eventType,
  EVENT_HEADERS.schemaVersion,
  EVENT_HEADERS.aggregateType,
  EVENT_HEADERS.aggregateId,
  EVENT_HEADERS.aggregateVersion,
  EVENT_HEADERS.occurredAt,
] as const;

/** Contract headers that become envelope fields (the others stay in `envelope.headers`). */
const CONTRACT_FIELDS: ReadonlySet<string> = new Set<string>(
  Object.values(EVENT_HEADERS).filter(
    (name) =>
      name !== EVENT_HEADERS.traceparent &&
      name !== EVENT_HEADERS.tracestate &&
      name !== EVENT_HEADERS.correlationId,
  ),
);

/**
 * Headers as strings whatever Nest's parser made of them (it JSON-parses header values
 * that start with `{` or `[`).
 * @internal
 */
export function headerStrings(raw: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw ?? {})) {
    const first: unknown = Array.isArray(value) && !Buffer.isBuffer(value) ? value[0] : value;
    if (first === undefined || first === null) continue;
    if (typeof first === 'string') out[name] = first;
    else if (Buffer.isBuffer(first)) out[name] = first.toString();
    else out[name] = JSON.stringify(first);
  }
  return out;
}

/** The record value as bytes (exact when the parser keeps it binary). @internal */
export function valueBytes(value: unknown): Buffer | undefined {
  if (value === undefined || value === null) return undefined;
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'string') return Buffer.from(value);
  return Buffer.from(JSON.stringify(value));
}

function parsePayload(value: unknown): { ok: true; payload: unknown } | { ok: false } {
  if (value === undefined || value === null) return { ok: false };
  if (typeof value === 'object' && !Buffer.isBuffer(value)) return { ok: true, payload: value };
  try {
    return {
      ok: true,
      payload: JSON.parse(
        Buffer.isBuffer(value) ? value.toString('utf8') : String(value as string),
      ),
    };
  } catch {
    return { ok: false };
  }
}

const reject = (code: RejectionCode, reason: string): DecodeResult => ({ ok: false, code, reason });

function integer(text: string): number | undefined {
  return /^-?\d{1,15}$/.test(text) ? Number(text) : undefined;
}

/**
 * Validates a record against the event contract (core's `EVENT_HEADERS`) and the handler's
 * rules, in a fixed order: headers, event id, type, schema version, size, payload. Never
 * throws and never reads more of the payload than parsing needs. `headers` defaults to
 * `headerStrings(record.headers)` (pass them when already computed).
 * @internal
 */
export function decodeEnvelope(
  record: ParsedRecord,
  rules: DecodeRules,
  headers: Record<string, string> = headerStrings(record.headers),
): DecodeResult {
  if (REQUIRED.some((h) => headers[h] === undefined || headers[h] === '')) {
    const missing = REQUIRED.filter((h) => headers[h] === undefined || headers[h] === '');
    return reject('missing_header', `missing header(s): ${missing.join(', ')}`);
  }
  const eventId = headers[EVENT_HEADERS.eventId]!;
  if (!isUuid(eventId))
    return reject(
      'invalid_event_id',
      `event_id is not a UUID: ${JSON.stringify(String(eventId).slice(0, 64))}`,
    );
  const eventType = headers[EVENT_HEADERS.eventType]!;
  if (rules.eventTypes && !rules.eventTypes.has(eventType)) {
    return reject(
      'unknown_event_type',
      `event_type ${JSON.stringify(eventType.slice(0, 200))} is not handled here`,
    );
  }
  const schemaVersion = integer(headers[EVENT_HEADERS.schemaVersion]!);
  if (
    schemaVersion === undefined ||
    schemaVersion < 1 ||
    (rules.schemaVersions && !rules.schemaVersions.has(schemaVersion))
  ) {
    return reject(
      'unsupported_schema_version',
      `schema_version ${JSON.stringify(headers[EVENT_HEADERS.schemaVersion])} is not supported for ${eventType}`,
    );
  }
  const aggregateVersion = integer(headers[EVENT_HEADERS.aggregateVersion]!);
  if (aggregateVersion === undefined || aggregateVersion < 0) {
    return reject(
      'invalid_header',
      `aggregate_version is not an integer: ${JSON.stringify(headers[EVENT_HEADERS.aggregateVersion]?.slice(0, 64))}`,
    );
  }
  const occurredAt = new Date(headers[EVENT_HEADERS.occurredAt]!);
  if (Number.isNaN(occurredAt.getTime()))
    return reject('invalid_header', 'occurred_at is not an ISO-8601 date');
  const bytes = valueBytes(record.value);
  if (bytes && bytes.length > rules.maxMessageBytes) {
    return reject(
      'oversize',
      `value is ${bytes.length} bytes, more than the limit of ${rules.maxMessageBytes}`,
    );
  }
  const parsed = parsePayload(record.value);
  if (!parsed.ok) return reject('not_json', 'value is not UTF-8 JSON');
  const own: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!CONTRACT_FIELDS.has(name)) own[name] = value;
  }
  return {
    ok: true,
    bytes: bytes?.length ?? 0,
    envelope: {
      eventId: eventId.toLowerCase(),
      eventType,
      schemaVersion,
      aggregateType: headers[EVENT_HEADERS.aggregateType]!,
      aggregateId: headers[EVENT_HEADERS.aggregateId]!,
      aggregateVersion,
      occurredAt,
      payload: parsed.payload,
      headers: own,
    },
  };
}
