import type { Pool } from 'pg';

/** What one fill writes. */
export interface FillShape {
  readonly events: number;
  readonly aggregates: number;
  /**
   * Approximate payload size in bytes, of hex text that PostgreSQL cannot compress; by
   * default the bench's classic payload (`{"n": g, "note": "x" * 64}`, about 85 bytes).
   */
  readonly payloadBytes?: number;
  /**
   * With `payloadBytes`: an order document of about that size (repeated keys, varied values,
   * as JSON events are) instead of hex text. Compression figures need such a payload.
   */
  readonly json?: boolean;
  /** Prefix of the aggregate ids (default `a`): a warm-up fill uses its own aggregates. */
  readonly aggregatePrefix?: string;
}

/**
 * `events` untimed events in `shape`'s form on aggregates of their own (prefix `w`), drained
 * before a timed fill so that the timed drain measures warm code.
 */
export function warmUpShape(shape: FillShape, events: number): FillShape {
  return { ...shape, events, aggregatePrefix: 'w' };
}

/** JSON object framing around the note: `{"n" : 123456, "note" : "..."}`. */
const FRAMING_BYTES = 28;

/** Bytes of one order item as PostgreSQL's json_build_object writes it, about. */
const ITEM_BYTES = 94;

function payloadSql(payloadBytes: number | undefined, json = false): string {
  if (payloadBytes === undefined) return `json_build_object('n', g, 'note', repeat('x', 64))`;
  if (json)
    return `json_build_object('orderId', 'order-' || g, 'customer', 'customer-' || (g % 977), 'currency', 'EUR',
      'items', (SELECT json_agg(json_build_object('sku', 'SKU-' || ((g * 7 + i) % 1000), 'quantity', (g + i) % 5 + 1,
        'price', ((g * 31 + i) % 10000) / 100.0, 'name', 'Item ' || left(md5((g * 131 + i)::text), 8)))
        FROM generate_series(1, ${Math.max(1, Math.round((payloadBytes - 100) / ITEM_BYTES))}) i))`;
  const note = Math.max(1, payloadBytes - FRAMING_BYTES);
  return `json_build_object('n', g, 'note', left((SELECT string_agg(md5((g::bigint * 100000 + i)::text), '')
            FROM generate_series(1, ${Math.ceil(note / 32)}) i), ${note}))`;
}

/**
 * One INSERT ... SELECT of pending events into `table` (qualified, validated by the caller):
 * `events` over `aggregates` keys, versions increasing with id, a traceparent header each;
 * then VACUUM ANALYZE unless `vacuum` is false. Resolves with the INSERT's duration in ms.
 */
export async function fillOutbox(
  pool: Pool,
  table: string,
  shape: FillShape,
  vacuum = true,
): Promise<number> {
  const startedAt = Date.now();
  await pool.query(
    `INSERT INTO ${table} (event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version, occurred_at, payload, headers)
     SELECT gen_random_uuid(), 'bench.event', 1, 'bench', $3::text || (g % $2), g / $2 + 1, now(),
            ${payloadSql(shape.payloadBytes, shape.json)},
            '{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}'::jsonb
       FROM generate_series(0, $1 - 1) g`,
    [shape.events, shape.aggregates, shape.aggregatePrefix ?? 'a'],
  );
  const insertMs = Date.now() - startedAt;
  if (vacuum) await pool.query(`VACUUM ANALYZE ${table}`);
  return insertMs;
}
