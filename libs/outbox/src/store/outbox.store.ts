import type { EntityManager } from 'typeorm';
import type { OutboxRow } from '../event/outbox-event.interface';
import { outboxInsertStatement } from './outbox-insert.sql';
import { queryInTransaction, type NamedStatement } from './transaction-query';

function compareKeys(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Bound values of the INSERT: sorted distinct lock keys, then one array per column. */
function insertValues(rows: readonly OutboxRow[]): unknown[] {
  // Sorted, so two transactions locking the same aggregates lock them in the same order.
  const keys = [...new Set(rows.map((r) => r.lockKey))].sort(compareKeys);
  return [
    keys.map(String),
    rows.map((r) => r.eventId),
    rows.map((r) => r.eventType),
    rows.map((r) => r.schemaVersion),
    rows.map((r) => r.aggregateType),
    rows.map((r) => r.aggregateId),
    rows.map((r) => r.aggregateVersion),
    rows.map((r) => r.occurredAt.toISOString()),
    rows.map((r) => r.payloadJson),
    rows.map((r) => JSON.stringify(r.headers)),
    rows.map((r) => r.topic),
  ];
}

/**
 * Writes outbox rows through the caller's transaction: one round trip per batch, the
 * per-aggregate advisory locks included.
 * @internal
 */
export class OutboxStore {
  private readonly insert: NamedStatement;

  constructor(qualifiedTable: string) {
    this.insert = outboxInsertStatement(qualifiedTable);
  }

  /** Inserts `rows` (in this order) in the transaction `tx`. */
  async insertRows(tx: EntityManager, rows: readonly OutboxRow[]): Promise<void> {
    if (rows.length > 0) await queryInTransaction(tx, this.insert, insertValues(rows));
  }
}
