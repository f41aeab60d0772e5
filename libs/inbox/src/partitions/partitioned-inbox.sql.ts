import { qualifiedTable } from '@nest-outbox/core/internal';
import { INBOX_MODULE } from '../inbox.constants';
import { inboxSchemaSql, inboxTableNames, type InboxTableNames } from '../schema/inbox-schema.sql';

/**
 * The inbox DDL with the inbox (dedup) table range-partitioned by `event_id`, a UUIDv7 whose
 * first 48 bits are the milliseconds it was made at: the key `(consumer, event_id)` holds the
 * partition key, so a duplicate is refused whichever partition its first copy went to.
 * Partitions come from `npx nest-outbox migrate --partition` and the inbox's pruner.
 * @publicApi
 */
export function partitionedInboxSchemaSql(tables: InboxTableNames = {}): string[] {
  const n = inboxTableNames(tables);
  const inbox = qualifiedTable(INBOX_MODULE, n.schema, n.inbox);
  return inboxSchemaSql(tables).map((statement) => {
    if (!statement.startsWith(`CREATE TABLE IF NOT EXISTS ${inbox} (`)) return statement;
    const partitioned = statement.replace(/\n\)$/, '\n) PARTITION BY RANGE (event_id)');
    if (partitioned === statement) throw new Error('partitioned inbox DDL: table end not found');
    return partitioned;
  });
}
