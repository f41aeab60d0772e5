import {
  PartitionMaintainer,
  qualifiedTable,
  type PartitionDb,
  type PartitionPass,
  type PartitionRetention,
} from '@nest-outbox/core/internal';
import { INBOX_MODULE } from '../inbox.constants';
import type { ResolvedTables } from '../options/inbox-options.resolver';
import { inboxTableNames } from '../schema/inbox-schema.sql';

/**
 * The inbox table's partitions, when `nest-outbox migrate --partition` made it partitioned: a
 * pass creates partitions ahead, drops those whose every row was processed longer than the
 * retention ago (an event made long ago but processed lately keeps its partition), and
 * analyzes the parent.
 * @internal
 */
export class InboxPartitions {
  private readonly maintainer: PartitionMaintainer;
  /** The default partition (quoted), pruned row by row as an ordinary inbox table. */
  readonly defaultPartition: string;

  constructor(tables: ResolvedTables) {
    const n = inboxTableNames(tables.names);
    this.maintainer = new PartitionMaintainer({
      module: INBOX_MODULE,
      schema: n.schema,
      table: n.inbox,
    });
    this.defaultPartition = qualifiedTable(INBOX_MODULE, n.schema, `${n.inbox}_default`);
  }

  /** One pass; `undefined` when the inbox table is not partitioned (one catalog read). */
  maintain(db: PartitionDb, keepMs: number): Promise<PartitionPass | undefined> {
    const retention: PartitionRetention = {
      keepMs,
      settledSql: (p) =>
        `SELECT coalesce((SELECT max(processed_at) FROM ${p}), '-infinity')
           < now() - $1::float8 * interval '1 millisecond' AS settled`,
    };
    return this.maintainer.maintain(db, retention);
  }
}
