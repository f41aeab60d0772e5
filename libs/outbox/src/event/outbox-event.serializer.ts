import { EVENT_HEADERS, uuidv7 } from '@nest-outbox/core';
import { isReservedHeader } from '@nest-outbox/core/internal';
import { InvalidEventError } from '../errors/invalid-event.error';
import { PayloadSerializationError } from '../errors/payload-serialization.error';
import { PayloadTooLargeError } from '../errors/payload-too-large.error';
import type { ResolvedOutboxOptions } from '../outbox-options.interface';
import { outboxLockKey } from './lock-key';
import type { OutboxEventInput, OutboxRow } from './outbox-event.interface';

/** Contract headers callers may give (they live in the `headers` column). */
const CALLER_HEADERS = new Set<string>([
  EVENT_HEADERS.traceparent,
  EVENT_HEADERS.tracestate,
  EVENT_HEADERS.correlationId,
]);

export type SerializerSettings = Pick<
  ResolvedOutboxOptions,
  'qualifiedTable' | 'maxPayloadBytes' | 'traceContext'
>;

function requireText(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new InvalidEventError(field, `must be a non-empty string (got ${typeof value})`);
  return value;
}

function requireInteger(field: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)
    throw new InvalidEventError(field, `must be an integer >= ${min} (got ${String(value)})`);
  return value;
}

function serializePayload(eventType: string, payload: unknown, maxBytes: number): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(payload);
  } catch (error) {
    throw new PayloadSerializationError(eventType, error);
  }
  if (typeof json !== 'string') throw new PayloadSerializationError(eventType);
  // A UTF-16 unit takes at most 3 UTF-8 bytes.
  if (json.length * 3 > maxBytes) {
    const size = Buffer.byteLength(json, 'utf8');
    if (size > maxBytes) throw new PayloadTooLargeError(eventType, size, maxBytes);
  }
  return json;
}

function buildHeaders(
  input: OutboxEventInput,
  traceContext: SerializerSettings['traceContext'],
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (isReservedHeader(name) && !CALLER_HEADERS.has(name.toLowerCase()))
      throw new InvalidEventError(
        `headers.${name}`,
        'is a contract header set by the library; rename your header',
      );
    if (typeof value !== 'string')
      throw new InvalidEventError(`headers.${name}`, `must be a string (got ${typeof value})`);
    headers[isReservedHeader(name) ? name.toLowerCase() : name] = value;
  }
  if (headers[EVENT_HEADERS.traceparent] === undefined && traceContext) {
    const active = traceContext();
    if (active?.traceparent) {
      headers[EVENT_HEADERS.traceparent] = active.traceparent;
      if (active.tracestate) headers[EVENT_HEADERS.tracestate] = active.tracestate;
    }
  }
  if (input.correlationId !== undefined)
    headers[EVENT_HEADERS.correlationId] = requireText('correlationId', input.correlationId);
  return headers;
}

/** Everything that can fail fails here, inside `record()`, so the change rolls back with it. @internal */
export function serializeOutboxEvent(
  input: OutboxEventInput,
  settings: SerializerSettings,
): OutboxRow {
  if (input === null || typeof input !== 'object')
    throw new InvalidEventError('event', 'must be an object');
  const eventType = requireText('eventType', input.eventType);
  const aggregateType = requireText('aggregateType', input.aggregateType);
  const aggregateId = requireText('aggregateId', input.aggregateId);
  const occurredAt = input.occurredAt ?? new Date();
  if (!(occurredAt instanceof Date) || Number.isNaN(occurredAt.getTime()))
    throw new InvalidEventError('occurredAt', 'must be a valid Date');
  if (input.topic !== undefined) requireText('topic', input.topic);
  return {
    eventId: uuidv7(),
    eventType,
    schemaVersion: requireInteger('schemaVersion', input.schemaVersion ?? 1, 1),
    aggregateType,
    aggregateId,
    aggregateVersion: requireInteger('aggregateVersion', input.aggregateVersion, 0),
    occurredAt,
    headers: buildHeaders(input, settings.traceContext),
    topic: input.topic ?? null,
    payloadJson: serializePayload(eventType, input.payload, settings.maxPayloadBytes),
    lockKey: outboxLockKey(settings.qualifiedTable, aggregateType, aggregateId),
  };
}
