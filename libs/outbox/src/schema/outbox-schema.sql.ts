import { qualifiedTable, sqlIdentifier } from '@nest-outbox/core/internal';
import { idempotencySchemaSql, idempotencyTable } from '../idempotency/idempotency.sql';

/** Where the outbox table lives. Both names are validated SQL identifiers. */
export interface OutboxTableName {
  readonly schema: string;
  readonly table: string;
}

/**
 * DDL of the outbox table, version 1, idempotent. Contract columns: event_id .. topic; relay
 * columns: attempts .. kafka_offset. Fill factor 80 leaves room for the relay's lease update
 * to be a HOT update.
 */
export function outboxSchemaSql(name: OutboxTableName): string[] {
  const schema = sqlIdentifier('OutboxModule', 'schema', name.schema);
  const table = qualifiedTable('OutboxModule', name.schema, name.table);
  const index = (suffix: string) =>
    sqlIdentifier('OutboxModule', 'table', `${name.table}_${suffix}`);
  return [
    `CREATE SCHEMA IF NOT EXISTS ${schema}`,
    `CREATE TABLE IF NOT EXISTS ${table} (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id          uuid        NOT NULL,
  event_type        text        NOT NULL,
  schema_version    integer     NOT NULL,
  aggregate_type    text        NOT NULL,
  aggregate_id      text        NOT NULL,
  aggregate_version bigint      NOT NULL,
  occurred_at       timestamptz NOT NULL,
  payload           json        NOT NULL,
  headers           jsonb       NOT NULL DEFAULT '{}'::jsonb,
  topic             text        NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  attempts          integer     NOT NULL DEFAULT 0,
  claims            integer     NOT NULL DEFAULT 0,
  lease_owner       text        NULL,
  lease_expires_at  timestamptz NULL,
  next_attempt_at   timestamptz NULL,
  last_error        text        NULL,
  error_history     jsonb       NOT NULL DEFAULT '[]'::jsonb,
  parked_at         timestamptz NULL,
  parked_reason     text        NULL,
  skipped_at        timestamptz NULL,
  skipped_by        text        NULL,
  skip_reason       text        NULL,
  published_at      timestamptz NULL,
  kafka_partition   integer     NULL,
  kafka_offset      bigint      NULL,
  CONSTRAINT ${index('event_id_key')} UNIQUE (event_id)
) WITH (fillfactor = 80)`,
    // The relay's working set: only rows still to publish, by aggregate then commit order.
    `CREATE INDEX IF NOT EXISTS ${index('pending_idx')} ON ${table} (aggregate_type, aggregate_id, id)
  WHERE published_at IS NULL AND skipped_at IS NULL`,
    // Housekeeping: published rows by age.
    `CREATE INDEX IF NOT EXISTS ${index('published_idx')} ON ${table} (published_at)
  WHERE published_at IS NOT NULL`,
    ...idempotencySchemaSql(name.schema, name.table),
  ];
}

/** Statements that remove the outbox table and its idempotency keys (the schema is left alone). */
export function dropOutboxSchemaSql(name: OutboxTableName): string[] {
  return [
    `DROP TABLE IF EXISTS ${idempotencyTable(name.schema, name.table)}`,
    `DROP TABLE IF EXISTS ${qualifiedTable('OutboxModule', name.schema, name.table)}`,
  ];
}
