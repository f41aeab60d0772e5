import { relaySchemaSql } from '@nest-outbox/relay';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The relay's own objects next to an outbox table (claim index, audit and archive tables),
 * so no relay process needs DDL rights at start-up.
 */
export function createRelayObjectsMigration(
  schema: string,
  table: string,
  timestamp: number,
): new () => MigrationInterface {
  const statements = relaySchemaSql({ schema, table });
  const name = `RelayObjects${timestamp}`;
  return class RelayObjectsMigration implements MigrationInterface {
    readonly name = name;

    async up(runner: QueryRunner): Promise<void> {
      for (const sql of statements) await runner.query(sql);
    }

    async down(): Promise<void> {
      // Dropping the outbox table (the previous migration's down) takes the index with it.
    }
  };
}
