import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropOutboxSchemaSql, outboxSchemaSql, type OutboxTableName } from './outbox-schema.sql';

/** Where the outbox table goes, and when its migration sorts among yours. @publicApi */
export interface OutboxMigrationOptions extends Partial<OutboxTableName> {
  /**
   * 13-digit millisecond timestamp TypeORM sorts migrations by (it ends the migration name).
   * @default 1764633600000 (version 1 of the outbox DDL)
   */
  readonly timestamp?: number;
}

function pascal(value: string): string {
  return value
    .split('_')
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/**
 * A TypeORM migration class creating the outbox table (with its partial index of
 * unpublished rows) in `schema.table`; `down` drops the table. Names are validated.
 *
 * @example
 * ```ts
 * new DataSource({ ..., migrations: [createOutboxMigration({ schema: 'app', table: 'outbox' })] });
 * ```
 * @publicApi
 */
export function createOutboxMigration(
  options: OutboxMigrationOptions = {},
): new () => MigrationInterface {
  const name: OutboxTableName = {
    schema: options.schema ?? 'public',
    table: options.table ?? 'outbox',
  };
  const up = outboxSchemaSql(name);
  const down = dropOutboxSchemaSql(name);
  const timestamp = options.timestamp ?? 1764633600000;
  const migrationName = `NestOutbox${pascal(name.schema)}${pascal(name.table)}${timestamp}`;
  return class OutboxMigration implements MigrationInterface {
    readonly name = migrationName;

    async up(queryRunner: QueryRunner): Promise<void> {
      for (const statement of up) await queryRunner.query(statement);
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      for (const statement of down) await queryRunner.query(statement);
    }
  };
}
