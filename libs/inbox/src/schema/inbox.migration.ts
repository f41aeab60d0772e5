import {
  createSqlMigration,
  migrationName,
  type SqlMigrationClass,
} from '@nest-outbox/core/internal';
import { INBOX_MODULE } from '../inbox.constants';
import {
  dropInboxSchemaSql,
  inboxSchemaSql,
  inboxTableNames,
  type InboxTableNames,
} from './inbox-schema.sql';

/** Version 1 of the inbox DDL: the default timestamp of its migration. */
const INBOX_DDL_V1 = 1767225600000;

/**
 * Where the inbox tables go, and when their migration sorts among yours: the shape of every
 * nest-outbox migration factory (`schema`, `table`, `timestamp`), plus the inbox's two other
 * tables. `timestamp` defaults to 1767225600000 (version 1 of the inbox DDL). @publicApi
 */
export interface InboxMigrationOptions extends InboxTableNames {
  /** 13-digit millisecond timestamp TypeORM orders migrations by. @default 1767225600000 */
  readonly timestamp?: number;
}

/**
 * A TypeORM migration class creating the inbox tables; `down` drops them (the schema stays).
 * Its name carries the schema and the inbox table (`NestOutboxInbox<Schema><Table><timestamp>`),
 * so the inbox migrated into two schemas of one database gives two migrations.
 * @example
 * new DataSource({ ..., migrations: [createInboxMigration({ schema: 'shipping' })] });
 * @publicApi
 */
export function createInboxMigration(options: InboxMigrationOptions = {}): SqlMigrationClass {
  const names = inboxTableNames(options);
  const name = migrationName(
    INBOX_MODULE,
    'Inbox',
    { schema: names.schema, table: names.inbox },
    options.timestamp ?? INBOX_DDL_V1,
  );
  return createSqlMigration(name, {
    up: inboxSchemaSql(options),
    down: dropInboxSchemaSql(options),
  });
}
