import { toKafkaHeaders } from '@nest-outbox/core';
import { UnencodableEventError } from '../errors/unencodable-event.error';
import type { PublishRecord } from '../publisher/relay-publisher.interface';
import type { ClaimedRow } from '../claim/claimed-batch';
import { isTopicName } from '../routing/topic-router';

/** A header name as a reason shows it: quoted, at most 64 characters. */
function shown(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}...` : name);
}

function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * `occurred_at` as the header carries it: `Date#toISOString`, which keeps the era (expanded
 * years) and which `new Date()` reads back exactly. Instants a JavaScript date cannot hold
 * (infinite, or after +275760-09-13) are refused.
 */
function occurredAt(ms: number): string {
  if (ms === Infinity || ms === -Infinity)
    throw new UnencodableEventError(`occurred_at is ${ms > 0 ? '' : '-'}infinity`);
  const date = new Date(ms);
  if (Number.isNaN(date.getTime()))
    throw new UnencodableEventError(
      'occurred_at is after +275760-09-13, beyond what an ISO-8601 date of the contract can hold',
    );
  return date.toISOString();
}

/** The event's own headers: a JSON object of strings (SQL or JSON `null`: none). */
function ownHeaders(value: unknown): Record<string, string> {
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new UnencodableEventError(`headers is ${jsonKind(value)}, not a JSON object of strings`);
  const headers = value as Record<string, unknown>;
  for (const name in headers) {
    const v = headers[name];
    if (typeof v !== 'string')
      throw new UnencodableEventError(`headers.${shown(name)} is ${jsonKind(v)}, not a string`);
  }
  return headers as Record<string, string>;
}

/**
 * The Kafka record of a row: key = aggregate id, the payload as stored, the contract headers
 * (the row's own headers first). Built row by row before a batch is sent, so that a row whose
 * columns have no record form is refused alone.
 * @throws UnencodableEventError naming the column
 * @internal
 */
export function toRecord(row: ClaimedRow, topic: string): PublishRecord {
  if (!isTopicName(topic))
    throw new UnencodableEventError(
      `topic ${shown(topic)} is not a Kafka topic name (1-249 characters of [a-zA-Z0-9._-])`,
    );
  const headers = toKafkaHeaders({
    eventId: row.eventId,
    eventType: row.eventType,
    schemaVersion: row.schemaVersion,
    aggregateType: row.aggregateType,
    aggregateId: row.aggregateId,
    aggregateVersion: 0,
    occurredAt: occurredAt(row.occurredAtMs),
    headers: ownHeaders(row.headers),
  });
  // A bigint: its text, exact beyond 2^53.
  headers.aggregate_version = row.aggregateVersion;
  return { topic, key: row.aggregateId, value: row.payload, headers };
}
