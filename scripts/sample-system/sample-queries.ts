import type { Pool } from 'pg';

/** Outbox figures of one outbox table. */
export interface OutboxFigures {
  readonly recorded: number;
  readonly published: number;
  readonly pending: number;
  readonly parked: number;
  /** Rows published more than once (claimed again after a lost lease or a crash). */
  readonly reclaimed: number;
  readonly oldestPendingAgeMs: number;
}

/** Reads the outbox figures straight from PostgreSQL (the relay's metrics die with it). */
export async function outboxFigures(
  pool: Pool,
  schema: string,
  table = 'outbox',
): Promise<OutboxFigures> {
  const { rows } = await pool.query<Record<string, string | null>>(
    `SELECT count(*) AS recorded,
            count(*) FILTER (WHERE published_at IS NOT NULL) AS published,
            count(*) FILTER (WHERE published_at IS NULL AND skipped_at IS NULL AND parked_at IS NULL) AS pending,
            count(*) FILTER (WHERE parked_at IS NOT NULL AND published_at IS NULL) AS parked,
            count(*) FILTER (WHERE claims > 1) AS reclaimed,
            COALESCE(EXTRACT(EPOCH FROM now() - min(created_at) FILTER (WHERE published_at IS NULL AND skipped_at IS NULL)) * 1000, 0) AS oldest
       FROM "${schema}"."${table}"`,
  );
  const r = rows[0]!;
  return {
    recorded: Number(r.recorded),
    published: Number(r.published),
    pending: Number(r.pending),
    parked: Number(r.parked),
    reclaimed: Number(r.reclaimed),
    oldestPendingAgeMs: Math.round(Number(r.oldest)),
  };
}

/** Projection figures of the shipping service. */
export interface ShippingFigures {
  readonly shipments: number;
  readonly cancelledShipments: number;
  /** Orders with more than one shipment (must be 0; also guarded by a unique constraint). */
  readonly ordersWithSeveralShipments: number;
  /** Orders with more than one `shipment.created` event recorded (a double effect). */
  readonly ordersWithSeveralCreatedEvents: number;
  readonly inboxRows: number;
  readonly rejected: number;
}

export async function shippingFigures(pool: Pool, schema: string): Promise<ShippingFigures> {
  const s = `"${schema}"`;
  const { rows } = await pool.query<Record<string, string>>(
    `SELECT (SELECT count(*) FROM ${s}.shipments) AS shipments,
            (SELECT count(*) FROM ${s}.shipments WHERE status = 'cancelled') AS cancelled,
            (SELECT count(*) FROM (SELECT order_id FROM ${s}.shipments GROUP BY order_id HAVING count(*) > 1) d) AS several,
            (SELECT count(*) FROM (SELECT payload->>'orderId' FROM ${s}.outbox WHERE event_type = 'shipment.created'
                                    GROUP BY payload->>'orderId' HAVING count(*) > 1) d) AS several_events,
            (SELECT count(*) FROM ${s}.inbox) AS inbox,
            (SELECT count(*) FROM ${s}.inbox_rejected) AS rejected`,
  );
  const r = rows[0]!;
  return {
    shipments: Number(r.shipments),
    cancelledShipments: Number(r.cancelled),
    ordersWithSeveralShipments: Number(r.several),
    ordersWithSeveralCreatedEvents: Number(r.several_events),
    inboxRows: Number(r.inbox),
    rejected: Number(r.rejected),
  };
}
