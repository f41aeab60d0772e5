import { qualifiedTable, sqlIdentifier } from '@nest-outbox/core/internal';
import { outboxSchemaSql, type OutboxTableName } from '../schema/outbox-schema.sql';

/** Storage parameters of each outbox partition (the parent takes none). @internal */
export const OUTBOX_PARTITION_STORAGE = 'fillfactor = 80';

function replaceOnce(text: string, from: string | RegExp, to: string): string {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`partitioned outbox DDL: ${String(from)} not found`);
  return out;
}

/**
 * The outbox DDL with the table range-partitioned by `event_id`, a UUIDv7 whose first 48 bits
 * are the milliseconds it was made at: `UNIQUE (event_id)` still holds across partitions, and
 * the primary key becomes `(id, event_id)` (PostgreSQL wants the partition key in every unique
 * key; `id` stays unique by its identity). Partitions come from `PartitionMaintainer`.
 * @publicApi
 */
export function partitionedOutboxSchemaSql(name: OutboxTableName): string[] {
  const table = qualifiedTable('OutboxModule', name.schema, name.table);
  const pkey = sqlIdentifier('OutboxModule', 'table', `${name.table}_pkey`);
  return outboxSchemaSql(name).map((statement) => {
    if (!statement.startsWith(`CREATE TABLE IF NOT EXISTS ${table} (`)) return statement;
    const keyed = replaceOnce(
      statement,
      /id( +)bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,/,
      'id$1bigint GENERATED ALWAYS AS IDENTITY,',
    );
    return replaceOnce(
      replaceOnce(keyed, /\n\) WITH \(fillfactor = 80\)$/, '\n) PARTITION BY RANGE (event_id)'),
      /\n {2}CONSTRAINT /,
      `\n  CONSTRAINT ${pkey} PRIMARY KEY (id, event_id),\n  CONSTRAINT `,
    );
  });
}
