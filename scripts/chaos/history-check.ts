import type { Pool } from 'pg';
import type { AppliedCommand } from './chaos-load';
import { CHAOS_NAMES } from './chaos-system';
import type { ReadRecord, TopicReader } from './topic-reader';

/** What the history check read and found. */
export interface HistoryReport {
  readonly violations: string[];
  readonly figures: {
    orders: number;
    orderEvents: number;
    orderRecords: number;
    duplicates: number;
    shipments: number;
    shipmentRecords: number;
    poisoned: number;
    blockedBehindPoison: number;
  };
}

interface OutboxRow {
  id: string;
  event_id: string;
  event_type: string;
  aggregate_id: string;
  aggregate_version: string;
  published: boolean;
  parked: boolean;
}

const STATUS_AFTER: Record<string, string> = {
  'order.created': 'pending',
  'order.poisoned': 'pending',
  'order.confirmed': 'confirmed',
  'order.cancelled': 'cancelled',
};

/**
 * I3 on one topic: per key, first occurrences in strictly increasing aggregate_version;
 * a repeated event id is a duplicate (counted). Returns the first occurrences by event id.
 */
function orderOfFirstOccurrences(
  topic: string,
  partitions: ReadonlyMap<number, readonly ReadRecord[]>,
  violations: string[],
): { first: Map<string, ReadRecord>; duplicates: number } {
  const first = new Map<string, ReadRecord>();
  const lastVersion = new Map<string, number>();
  let duplicates = 0;
  for (const records of partitions.values()) {
    for (const r of records) {
      if (first.has(r.eventId)) {
        duplicates += 1;
        continue;
      }
      first.set(r.eventId, r);
      const last = lastVersion.get(r.key) ?? 0;
      if (r.version <= last) {
        violations.push(
          `I3: ${topic} key ${r.key}: version ${r.version} first seen at ${r.partition}/${r.offset} after version ${last}`,
        );
      }
      lastVersion.set(r.key, Math.max(last, r.version));
    }
  }
  return { first, duplicates };
}

/** Reads the outside history (Kafka through the reader, PostgreSQL by SQL) and checks I1-I6. */
export async function checkHistory(
  db: Pool,
  reader: TopicReader,
  applied: readonly AppliedCommand[],
): Promise<HistoryReport> {
  const n = CHAOS_NAMES;
  const v: string[] = [];
  const q = async <T>(sql: string) => (await db.query<T & Record<string, unknown>>(sql)).rows;
  const orders = await q<{ id: string; status: string; version: number }>(
    `SELECT id::text, status, version FROM ${n.ordersSchema}.orders`,
  );
  const rows = await q<OutboxRow>(
    `SELECT id::text, event_id::text, event_type, aggregate_id, aggregate_version::text,
            published_at IS NOT NULL AS published, parked_at IS NOT NULL AS parked
       FROM ${n.ordersSchema}.outbox ORDER BY id`,
  );
  const orderTopic = orderOfFirstOccurrences(n.orderTopic, reader.partitions(n.orderTopic), v);
  const shipTopic = orderOfFirstOccurrences(n.shipmentTopic, reader.partitions(n.shipmentTopic), v);

  // I6: only poison is parked, and a poisoned aggregate's later events wait, unparked, unsent.
  const poisonAt = new Map<string, bigint>();
  for (const r of rows) {
    if (!r.parked) continue;
    if (r.event_type === 'order.poisoned') poisonAt.set(r.aggregate_id, BigInt(r.id));
    else
      v.push(
        `I6: event ${r.event_id} (${r.event_type}) of order ${r.aggregate_id} parked without poison`,
      );
  }
  const blocked = (r: OutboxRow) => {
    const at = poisonAt.get(r.aggregate_id);
    return at !== undefined && BigInt(r.id) >= at;
  };
  let blockedCount = 0;
  const byOrder = new Map<string, OutboxRow[]>();
  const byEvent = new Map<string, OutboxRow>();
  for (const r of rows) {
    byEvent.set(r.event_id, r);
    const list = byOrder.get(r.aggregate_id) ?? [];
    list.push(r);
    byOrder.set(r.aggregate_id, list);
    if (blocked(r)) {
      blockedCount += 1;
      if (r.published || orderTopic.first.has(r.event_id))
        v.push(
          `I6: event ${r.event_id} of poisoned order ${r.aggregate_id} was published past its poison`,
        );
    } else if (!r.published || !orderTopic.first.has(r.event_id)) {
      v.push(
        `I1: event ${r.event_id} (${r.event_type} v${r.aggregate_version}) of order ${r.aggregate_id} is not in Kafka (published=${r.published})`,
      );
    }
  }

  // I1/I2 in the database: one event per version, versions 1..n, final status = last event.
  for (const o of orders) {
    const events = (byOrder.get(o.id) ?? []).map((r) => ({
      ...r,
      version: Number(r.aggregate_version),
    }));
    events.sort((a, b) => a.version - b.version);
    const versions = events.map((e) => e.version).join(',');
    const expected = Array.from({ length: o.version }, (_, i) => i + 1).join(',');
    if (versions !== expected)
      v.push(`I1/I2: order ${o.id} at version ${o.version} has events of versions [${versions}]`);
    const last = events[events.length - 1];
    if (last && STATUS_AFTER[last.event_type] !== o.status)
      v.push(`I2: order ${o.id} is ${o.status} but its last event is ${last.event_type}`);
  }
  const orderIds = new Set(orders.map((o) => o.id));
  for (const r of rows)
    if (!orderIds.has(r.aggregate_id))
      v.push(`I2: event ${r.event_id} of a missing order ${r.aggregate_id}`);

  // I2 in Kafka: every record is an outbox row's event, as recorded.
  for (const rec of orderTopic.first.values()) {
    const row = byEvent.get(rec.eventId);
    if (!row)
      v.push(`I2: record ${rec.partition}/${rec.offset} (event ${rec.eventId}) has no outbox row`);
    else if (
      row.aggregate_id !== rec.key ||
      Number(row.aggregate_version) !== rec.version ||
      row.event_type !== rec.eventType
    )
      v.push(`I2: record of event ${rec.eventId} differs from its outbox row`);
  }

  // Every command answered 2xx: its event recorded, and in Kafka unless behind a poison.
  const byVersion = new Map(rows.map((r) => [`${r.aggregate_id}/${r.aggregate_version}`, r]));
  for (const c of applied) {
    const row = byVersion.get(`${c.orderId}/${c.version}`);
    if (!row || row.event_type !== c.eventType)
      v.push(
        `I1: ${c.eventType} of order ${c.orderId} v${c.version} answered 2xx but is not recorded as such`,
      );
    else if (!blocked(row) && !orderTopic.first.has(row.event_id))
      v.push(
        `I1: ${c.eventType} of order ${c.orderId} v${c.version} answered 2xx and never reached Kafka`,
      );
  }

  const shipments = await checkEffects(db, orderTopic.first, shipTopic.first, v);
  return {
    violations: v,
    figures: {
      orders: orders.length,
      orderEvents: rows.length,
      orderRecords: [...reader.partitions(n.orderTopic).values()].reduce((s, l) => s + l.length, 0),
      duplicates: orderTopic.duplicates + shipTopic.duplicates,
      shipments,
      shipmentRecords: [...reader.partitions(n.shipmentTopic).values()].reduce(
        (s, l) => s + l.length,
        0,
      ),
      poisoned: poisonAt.size,
      blockedBehindPoison: blockedCount - poisonAt.size,
    },
  };
}

/**
 * I4: the shipping inbox applied each consumed order event exactly once: one inbox row per
 * event id consumed, one shipment per confirmed order (cancelled iff a confirmed order was
 * cancelled), one shipment.created / shipment.cancelled each, all of them in Kafka.
 */
async function checkEffects(
  db: Pool,
  orderEvents: ReadonlyMap<string, ReadRecord>,
  shipmentEvents: ReadonlyMap<string, ReadRecord>,
  v: string[],
): Promise<number> {
  const n = CHAOS_NAMES;
  const inbox = new Set(
    (
      await db.query<{ event_id: string }>(
        `SELECT event_id::text FROM ${n.shippingSchema}.inbox WHERE consumer = $1`,
        [n.projection],
      )
    ).rows.map((r) => r.event_id),
  );
  for (const id of orderEvents.keys())
    if (!inbox.has(id)) v.push(`I4: order event ${id} consumed but never applied`);
  for (const id of inbox)
    if (!orderEvents.has(id)) v.push(`I4: inbox row for event ${id} that is not in Kafka`);
  const confirmed = new Map<string, string>();
  const cancelledAfterConfirm = new Set<string>();
  for (const r of orderEvents.values()) {
    if (r.eventType === 'order.confirmed') confirmed.set(r.key, r.eventId);
    if (r.eventType === 'order.cancelled' && r.wasConfirmed) cancelledAfterConfirm.add(r.key);
  }
  const shipments = (
    await db.query<{ order_id: string; status: string; source_event_id: string }>(
      `SELECT order_id::text, status, source_event_id::text FROM ${n.shippingSchema}.shipments`,
    )
  ).rows;
  const shipped = new Set<string>();
  for (const s of shipments) {
    shipped.add(s.order_id);
    if (confirmed.get(s.order_id) !== s.source_event_id)
      v.push(`I4: shipment of order ${s.order_id} not from its order.confirmed event`);
    const want = cancelledAfterConfirm.has(s.order_id) ? 'cancelled' : 'created';
    if (s.status !== want)
      v.push(`I4: shipment of order ${s.order_id} is ${s.status}, expected ${want}`);
  }
  for (const orderId of confirmed.keys())
    if (!shipped.has(orderId)) v.push(`I4: confirmed order ${orderId} has no shipment`);
  const events = (
    await db.query<{
      event_id: string;
      event_type: string;
      order_id: string;
      published: boolean;
      parked: boolean;
    }>(
      `SELECT event_id::text, event_type, payload->>'orderId' AS order_id,
              published_at IS NOT NULL AS published, parked_at IS NOT NULL AS parked
         FROM ${n.shippingSchema}.outbox`,
    )
  ).rows;
  const count = new Map<string, number>();
  for (const e of events) {
    count.set(
      `${e.event_type}/${e.order_id}`,
      (count.get(`${e.event_type}/${e.order_id}`) ?? 0) + 1,
    );
    if (e.parked) v.push(`I6: shipping event ${e.event_id} parked`);
    if (!e.published || !shipmentEvents.has(e.event_id))
      v.push(`I1: shipping event ${e.event_id} is not in Kafka`);
  }
  for (const s of shipments) {
    const created = count.get(`shipment.created/${s.order_id}`) ?? 0;
    const cancelled = count.get(`shipment.cancelled/${s.order_id}`) ?? 0;
    if (created !== 1) v.push(`I4: order ${s.order_id} has ${created} shipment.created events`);
    if (cancelled !== (s.status === 'cancelled' ? 1 : 0))
      v.push(
        `I4: order ${s.order_id} has ${cancelled} shipment.cancelled events (shipment ${s.status})`,
      );
  }
  return shipments.length;
}
