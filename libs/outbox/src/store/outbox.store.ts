import type { SqlExecutor } from '@nest-outbox/core/internal';
import type { OutboxRow } from '../event/outbox-event.interface';
import type { OutboxMetrics } from '../metrics/outbox.metrics';
import {
  OUTBOX_INSERT_COLUMNS,
  outboxInsertOneStatement,
  outboxInsertStatement,
  outboxRowValues,
  type NamedStatement,
} from './outbox-insert.sql';

function compareKeys(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function insertValues(rows: readonly OutboxRow[]): unknown[] {
  // Sorted, so two transactions locking the same aggregates lock them in the same order.
  const keys = [...new Set(rows.map((r) => r.lockKey))].sort(compareKeys);
  return [keys.map(String), ...OUTBOX_INSERT_COLUMNS.map(([, , value]) => rows.map(value))];
}

/** Writes outbox rows through the caller's transaction, one round trip per batch. @internal */
export class OutboxStore {
  private readonly insert: NamedStatement;
  private readonly insertOne: NamedStatement;

  constructor(
    qualifiedTable: string,
    private readonly metrics: OutboxMetrics,
  ) {
    this.insert = outboxInsertStatement(qualifiedTable);
    this.insertOne = outboxInsertOneStatement(qualifiedTable);
  }

  async insertRows(sql: SqlExecutor, rows: readonly OutboxRow[]): Promise<void> {
    if (rows.length === 1)
      await sql.query(this.insertOne.text, outboxRowValues(rows[0]!), this.insertOne.name);
    else if (rows.length > 1)
      await sql.query(this.insert.text, insertValues(rows), this.insert.name);
    this.metrics.flushed(rows.map((r) => r.eventType));
  }
}
