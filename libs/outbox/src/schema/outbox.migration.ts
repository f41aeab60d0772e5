import { type MigrationOptions } from '@nest-outbox/core';
import { createTableMigration, type SqlMigrationClass } from '@nest-outbox/core/internal';
import { dropOutboxSchemaSql, outboxSchemaSql } from './outbox-schema.sql';

/** `MigrationOptions`; `timestamp` defaults to 1764633600000 (version 1 of the outbox DDL). @publicApi */
export type OutboxMigrationOptions = MigrationOptions;

/**
 * A TypeORM migration class creating the outbox table; `down` drops it.
 * @example
 * ```ts
 * new DataSource({ ..., migrations: [createOutboxMigration({ schema: 'app', table: 'outbox' })] });
 * ```
 * @publicApi
 */
export function createOutboxMigration(options: OutboxMigrationOptions = {}): SqlMigrationClass {
  return createTableMigration(
    {
      module: 'OutboxModule',
      kind: '',
      defaults: { table: 'outbox', timestamp: 1764633600000 },
      up: outboxSchemaSql,
      down: dropOutboxSchemaSql,
    },
    options,
  );
}
