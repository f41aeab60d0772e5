import type { OutboxEventInput } from '@nest-outbox/outbox';

/** Rows per caller: each caller flips its own orders pending <-> confirmed. */
export const ROWS_PER_CALLER = 50;

const PAYLOAD = {
  orderId: 0,
  status: 'confirmed',
  amount: 1234,
  currency: 'EUR',
  note: 'x'.repeat(64),
};

/** The statements every variant shares. */
export interface BenchSql {
  readonly schema: string;
  /** The business write: `$1` id, `$2` new status, `$3` expected status. */
  readonly update: string;
}

export function benchSql(schema: string): BenchSql {
  return {
    schema,
    update: `UPDATE "${schema}".orders SET status = $2, version = version + 1 WHERE id = $1 AND status = $3 RETURNING version`,
  };
}

/** The event every variant records for a transition of order `id` to `to`. */
export function benchEvent(id: number, to: string): Omit<OutboxEventInput, 'aggregateVersion'> {
  return {
    eventType: `order.${to}`,
    aggregateType: 'order',
    aggregateId: String(id),
    payload: { ...PAYLOAD, orderId: id, status: to },
  };
}

export function versionOf(rows: { version: string }[]): number {
  const version = rows[0]?.version;
  if (version === undefined) throw new Error('transition matched no row');
  return Number(version);
}
