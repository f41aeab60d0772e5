import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { InboxTableNames } from '../inbox.options';
import { dropInboxSchemaSql, inboxSchemaSql } from './inbox-schema.sql';

/**
 * A TypeORM migration class creating the inbox tables. Add it to the DataSource's
 * `migrations` (the name embeds the timestamp TypeORM orders by).
 * @example
 * migrations: [createInboxMigration({ schema: 'shipping' })]
 * @publicApi
 */
export function createInboxMigration(
  tables: InboxTableNames = {},
  timestamp = 1767225600000,
): new () => MigrationInterface {
  const up = inboxSchemaSql(tables);
  const down = dropInboxSchemaSql(tables);
  class InboxMigration implements MigrationInterface {
    name = `NestOutboxInbox${timestamp}`;
    async up(runner: QueryRunner): Promise<void> {
      for (const sql of up) await runner.query(sql);
    }
    async down(runner: QueryRunner): Promise<void> {
      for (const sql of down) await runner.query(sql);
    }
  }
  Object.defineProperty(InboxMigration, 'name', { value: `NestOutboxInbox${timestamp}` });
  return InboxMigration;
}
