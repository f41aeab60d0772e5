import { type MigrationOptions } from '@nest-outbox/core';
import { createTableMigration, type SqlMigrationClass } from '@nest-outbox/core/internal';
import { RELAY_MODULE } from '../relay.constants';
import { dropRelaySchemaSql, relaySchemaSql } from './relay-schema.sql';

/**
 * Options of `createRelayMigration`: the same shape as `createOutboxMigration`'s (`table` is
 * the outbox table the relay serves). @publicApi
 */
export type RelayMigrationOptions = MigrationOptions;

/**
 * A TypeORM migration class creating the relay's own objects next to an outbox table, so that
 * no relay process needs DDL rights at start-up. Add it after the outbox's migration; `down`
 * drops those objects (not the outbox table). Its name carries the schema and the table.
 * @publicApi
 */
export function createRelayMigration(options: RelayMigrationOptions = {}): SqlMigrationClass {
  return createTableMigration(
    {
      module: RELAY_MODULE,
      kind: 'Relay',
      // After the outbox's own default. Version 2 (the pressure table): a database where
      // version 1 ran runs it as a new migration, and its statements are idempotent.
      defaults: { table: 'outbox', timestamp: 1764633600002 },
      up: relaySchemaSql,
      down: dropRelaySchemaSql,
    },
    options,
  );
}
