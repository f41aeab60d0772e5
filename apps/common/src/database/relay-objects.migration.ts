import { relaySchemaSql } from '@nest-outbox/relay';
import type { MigrationInterface } from 'typeorm';
import { createSqlMigration } from './sql.migration';

/**
 * The relay's own objects next to an outbox table (claim index, audit and archive tables),
 * so no relay process needs DDL rights at start-up. Its `down` does nothing: dropping the
 * outbox table (the previous migration's down) takes the index with it.
 */
export function createRelayObjectsMigration(
  schema: string,
  table: string,
  timestamp: number,
): new () => MigrationInterface {
  return createSqlMigration(`RelayObjects${timestamp}`, {
    up: relaySchemaSql({ schema, table }),
    down: [],
  });
}
