import { createHash } from 'node:crypto';
import type { OutboxRow } from '../event/outbox-event.interface';

/** A statement prepared under `name` where the driver allows. @internal */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

/** `<prefix>_<digest of text>`: a changed text never reuses a name prepared for another. @internal */
export function statementName(prefix: string, text: string): string {
  return `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
}

type Column = readonly [name: string, type: string, value: (row: OutboxRow) => unknown];

/** The columns `record()` fills, in statement order: the one map from an event to its values. @internal */
export const OUTBOX_INSERT_COLUMNS: readonly Column[] = [
  ['event_id', 'uuid', (r) => r.eventId],
  ['event_type', 'text', (r) => r.eventType],
  ['schema_version', 'integer', (r) => r.schemaVersion],
  ['aggregate_type', 'text', (r) => r.aggregateType],
  ['aggregate_id', 'text', (r) => r.aggregateId],
  ['aggregate_version', 'bigint', (r) => r.aggregateVersion],
  ['occurred_at', 'timestamptz', (r) => r.occurredAt.toISOString()],
  ['payload', 'json', (r) => r.payloadJson],
  ['headers', 'jsonb', (r) => JSON.stringify(r.headers)],
  ['topic', 'text', (r) => r.topic],
];

const NAMES = OUTBOX_INSERT_COLUMNS.map(([name]) => name).join(', ');

/**
 * Takes the advisory locks of the batch's aggregates (`$1`, sorted, distinct), then inserts
 * the rows: the locks sit in an uncorrelated sub-select of the WHERE clause, a one-time filter
 * run before the first row, so every `id` is drawn under the locks (for one aggregate, `id`
 * order is commit order). One shape for any number of rows.
 * @internal
 */
export function outboxInsertStatement(qualifiedTable: string): NamedStatement {
  const arrays = OUTBOX_INSERT_COLUMNS.map(([, type], i) => `$${i + 2}::${type}[]`).join(', ');
  const text =
    `INSERT INTO ${qualifiedTable} (${NAMES})\n` +
    `SELECT ${NAMES} FROM unnest(${arrays}) AS e(${NAMES})\n` +
    'WHERE (SELECT count(pg_advisory_xact_lock(k)) FROM unnest($1::bigint[]) AS l(k)) > 0';
  return { name: statementName('nest_outbox_insert', text), text };
}

/** The same for one row with scalar parameters (no arrays to build and unnest): the common case. @internal */
export function outboxInsertOneStatement(qualifiedTable: string): NamedStatement {
  const values = OUTBOX_INSERT_COLUMNS.map(([, type], i) => `$${i + 2}::${type}`).join(', ');
  const text =
    `INSERT INTO ${qualifiedTable} (${NAMES})\n` +
    `SELECT ${values}\n` +
    'WHERE pg_advisory_xact_lock($1::bigint) IS NOT NULL';
  return { name: statementName('nest_outbox_insert_one', text), text };
}

/** The lock key of `row`, then the values of `columns` (those of `outboxInsertOneStatement`). @internal */
export function outboxRowValues(row: OutboxRow, columns = OUTBOX_INSERT_COLUMNS): unknown[] {
  return [String(row.lockKey), ...columns.map(([, , value]) => value(row))];
}
