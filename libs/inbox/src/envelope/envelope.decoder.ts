import { EVENT_HEADERS, type EventEnvelope } from '@nest-outbox/core';
import { errorLabel, isUuid } from '@nest-outbox/core/internal';
import {
  DEFAULT_MAX_JSON_DEPTH,
  jsonExcess,
  jsonTextTooDeep,
  type JsonExcess,
} from './json-bounds';
import { headerStrings, valueByteLength, type ParsedRecord } from './record-parts';
import { MAX_RECORD_HEADERS, TOO_MANY_HEADERS_HEADER } from '../kafkajs/header-decoding';
import { undecodableBatch } from '../kafkajs/undecodable-batch';

export { headerStrings, valueBytes, type ParsedRecord } from './record-parts';

/** Why a record was rejected before its handler ran. @publicApi */
export type RejectionCode =
  | 'not_json'
  | 'missing_header'
  | 'invalid_header'
  | 'invalid_event_id'
  | 'unknown_event_type'
  | 'unsupported_schema_version'
  | 'oversize'
  | 'too_deep'
  | 'too_many_headers'
  | 'undecodable_batch'
  | 'undecodable'
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
  /** Deepest JSON nesting accepted in the payload and in header values. @default 64 */
  readonly maxJsonDepth?: number;
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

/** Contract headers stored as text (and in index keys): printable, no unpaired surrogate, bounded. */
const TEXT_FIELDS = [
  EVENT_HEADERS.eventType,
  EVENT_HEADERS.aggregateType,
  EVENT_HEADERS.aggregateId,
] as const;
const MAX_TEXT_FIELD = 1000;
const UNPRINTABLE =
  // eslint-disable-next-line no-control-regex -- control characters are what it refuses
  /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Contract headers that become envelope fields (the others stay in `envelope.headers`). */
const CONTRACT_FIELDS: ReadonlySet<string> = new Set<string>(
  Object.values(EVENT_HEADERS).filter(
    (name) =>
      name !== EVENT_HEADERS.traceparent &&
      name !== EVENT_HEADERS.tracestate &&
      name !== EVENT_HEADERS.correlationId,
  ),
);

type Parsed = { ok: true; payload: unknown } | { ok: false; code: RejectionCode; reason: string };

const isParsed = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && !Buffer.isBuffer(value);

/** The payload: text has its nesting checked BEFORE parsing; a parsed value is kept. */
function parsePayload(value: unknown, maxDepth: number): Parsed {
  if (value === undefined || value === null)
    return { ok: false, code: 'not_json', reason: 'value is empty (tombstone)' };
  if (isParsed(value)) return { ok: true, payload: value };
  const text = Buffer.isBuffer(value) ? value.toString('utf8') : String(value as string);
  if (jsonTextTooDeep(text, maxDepth))
    return { ok: false, code: 'too_deep', reason: `value nests deeper than ${maxDepth} levels` };
  try {
    return { ok: true, payload: JSON.parse(text) };
  } catch {
    return { ok: false, code: 'not_json', reason: 'value is not UTF-8 JSON' };
  }
}

const reject = (code: RejectionCode, reason: string): DecodeResult => ({ ok: false, code, reason });

function integer(text: string): number | undefined {
  return /^-?\d{1,15}$/.test(text) ? Number(text) : undefined;
}

/** JSON values a parsed header value may hold. */
const MAX_HEADER_NODES = 100_000;

/** Which bound the first header whose parsed JSON value exceeds one exceeds, if any. */
function headerExcess(raw: ParsedRecord['headers'], maxDepth: number): JsonExcess | undefined {
  if (!raw) return undefined;
  for (const name in raw) {
    if (!Object.hasOwn(raw, name)) continue;
    const value = raw[name];
    if (typeof value === 'object' && value !== null && !Buffer.isBuffer(value)) {
      const excess = jsonExcess(value, maxDepth + 1, MAX_HEADER_NODES);
      if (excess) return excess;
    }
  }
  return undefined;
}

const isMissing = (headers: Record<string, string>, name: string) =>
  headers[name] === undefined || headers[name] === '';

/**
 * Checks the contract's headers; the reasons name fields, never the values refused. Returns
 * the rejection, or the parsed `occurred_at` (parsed once, for the check and the envelope).
 */
function checkHeaders(headers: Record<string, string>, rules: DecodeRules): DecodeResult | Date {
  if (REQUIRED.some((h) => isMissing(headers, h))) {
    const missing = REQUIRED.filter((h) => isMissing(headers, h));
    return reject('missing_header', `missing header(s): ${missing.join(', ')}`);
  }
  const eventId = headers[EVENT_HEADERS.eventId]!;
  const idLength = eventId.length;
  if (!isUuid(eventId))
    return reject('invalid_event_id', `event_id is not a UUID (${idLength} characters)`);
  for (const field of TEXT_FIELDS) {
    const text = headers[field]!;
    if (Buffer.byteLength(text) > MAX_TEXT_FIELD || UNPRINTABLE.test(text))
      return reject(
        'invalid_header',
        `${field} must be at most ${MAX_TEXT_FIELD} bytes of printable text (control characters, NUL and unpaired surrogates refused)`,
      );
  }
  const eventType = headers[EVENT_HEADERS.eventType]!;
  if (rules.eventTypes && !rules.eventTypes.has(eventType))
    return reject('unknown_event_type', 'event_type is not handled here');
  const schemaVersion = integer(headers[EVENT_HEADERS.schemaVersion]!);
  if (
    schemaVersion === undefined ||
    schemaVersion < 1 ||
    (rules.schemaVersions && !rules.schemaVersions.has(schemaVersion))
  )
    return reject('unsupported_schema_version', 'schema_version is not supported here');
  const aggregateVersion = integer(headers[EVENT_HEADERS.aggregateVersion]!);
  if (aggregateVersion === undefined || aggregateVersion < 0)
    return reject('invalid_header', 'aggregate_version is not a non-negative integer');
  const occurredAt = new Date(headers[EVENT_HEADERS.occurredAt]!);
  if (Number.isNaN(occurredAt.getTime()))
    return reject('invalid_header', 'occurred_at is not an ISO-8601 date');
  return occurredAt;
}

function decode(
  record: ParsedRecord,
  rules: DecodeRules,
  headers: Record<string, string>,
): DecodeResult {
  // Put there by the transport's capped header decoding instead of the record's own headers.
  const headerCount = headers[TOO_MANY_HEADERS_HEADER];
  if (headerCount !== undefined) {
    const count = integer(headerCount);
    return reject(
      'too_many_headers',
      `record has ${count ?? 'too many'} headers, more than ${MAX_RECORD_HEADERS} (capped before decoding)`,
    );
  }
  const batchFailure = undecodableBatch(headers);
  if (batchFailure !== undefined) return reject('undecodable_batch', batchFailure);
  const maxDepth = rules.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const inHeader = headerExcess(record.headers, maxDepth);
  if (inHeader === 'depth')
    return reject('too_deep', `a header value nests deeper than ${maxDepth} levels`);
  if (inHeader === 'nodes')
    return reject('oversize', `a header value holds more than ${MAX_HEADER_NODES} JSON values`);
  const occurredAt = checkHeaders(headers, rules);
  if (!(occurredAt instanceof Date)) return occurredAt;
  // A value Nest's parser already parsed is measured only once its nesting is known bounded.
  const inValue = isParsed(record.value)
    ? jsonExcess(record.value, maxDepth, rules.maxMessageBytes)
    : undefined;
  if (inValue === 'depth') return reject('too_deep', `value nests deeper than ${maxDepth} levels`);
  if (inValue === 'nodes')
    return reject(
      'oversize',
      `value holds more than ${rules.maxMessageBytes} JSON values: more than its limit of ${rules.maxMessageBytes} bytes`,
    );
  // A parsed value's nesting is bounded by now (checked just above).
  const bytes = valueByteLength(record.value, maxDepth);
  if (bytes !== undefined && bytes > rules.maxMessageBytes)
    return reject(
      'oversize',
      `value is ${bytes} bytes, more than the limit of ${rules.maxMessageBytes}`,
    );
  const parsed = parsePayload(record.value, maxDepth);
  if (!parsed.ok) return reject(parsed.code, parsed.reason);
  const own: Record<string, string> = {};
  for (const name in headers) {
    if (Object.hasOwn(headers, name) && !CONTRACT_FIELDS.has(name)) own[name] = headers[name]!;
  }
  return {
    ok: true,
    bytes: bytes ?? 0,
    envelope: {
      eventId: headers[EVENT_HEADERS.eventId]!.toLowerCase(),
      eventType: headers[EVENT_HEADERS.eventType]!,
      schemaVersion: Number(headers[EVENT_HEADERS.schemaVersion]),
      aggregateType: headers[EVENT_HEADERS.aggregateType]!,
      aggregateId: headers[EVENT_HEADERS.aggregateId]!,
      aggregateVersion: Number(headers[EVENT_HEADERS.aggregateVersion]),
      occurredAt,
      payload: parsed.payload,
      headers: own,
    },
  };
}

/**
 * Validates a record against the event contract and the handler's rules, in a fixed order.
 * Never throws (an unexpected error is `undecodable`), never recurses over untrusted data, and
 * its reasons name fields and limits, never values. @internal
 */
export function decodeEnvelope(
  record: ParsedRecord,
  rules: DecodeRules,
  headers?: Record<string, string>,
): DecodeResult {
  try {
    return decode(record, rules, headers ?? headerStrings(record.headers));
  } catch (error) {
    return reject('undecodable', `decoder failed: ${errorLabel(error)}`);
  }
}
