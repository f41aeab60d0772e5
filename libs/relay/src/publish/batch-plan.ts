import { toKafkaHeaders } from '@nest-outbox/core';
import type { PublishRecord } from '../publisher/relay-publisher.interface';
import type { TopicRouter } from '../routing/topic-router';
import type { ClaimedRow } from '../claim/claimed-batch';

/** A claimed row and the record it becomes. @internal */
export interface PlannedItem {
  readonly row: ClaimedRow;
  readonly record: PublishRecord;
}

/** How a claimed batch is sent: pure functions of its rows, no I/O. @internal */
export interface BatchPlan {
  /** Per aggregate, its first row without a topic and the rows after it (parked, released). */
  readonly unroutable: readonly ClaimedRow[][];
  /** Aggregates whose head is clean: sent together, in chunks. */
  readonly clean: readonly PlannedItem[][];
  /** Aggregates whose head is a suspect (an earlier publish never finished): sent alone. */
  readonly suspects: readonly PlannedItem[][];
}

/** The Kafka record of a row: key = aggregate id, the payload as stored, the contract headers. */
export function toRecord(row: ClaimedRow, topic: string): PublishRecord {
  return {
    topic,
    key: row.aggregateId,
    value: row.payload,
    headers: toKafkaHeaders({
      eventId: row.eventId,
      eventType: row.eventType,
      schemaVersion: row.schemaVersion,
      aggregateType: row.aggregateType,
      aggregateId: row.aggregateId,
      aggregateVersion: Number(row.aggregateVersion),
      occurredAt: row.occurredAt,
      headers: row.headers,
    }),
  };
}

const aggregateKey = (row: ClaimedRow) => `${row.aggregateType}\u0000${row.aggregateId}`;

/** Items grouped by aggregate, each group in the given order, groups in order of first appearance. */
export function byAggregate(items: readonly PlannedItem[]): PlannedItem[][] {
  const groups = new Map<string, PlannedItem[]>();
  for (const item of items) {
    const key = aggregateKey(item.row);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return [...groups.values()];
}

/**
 * Routes each row and splits the batch by aggregate: once a row of a run has no topic, it
 * and everything after it in its run wait (the first one is parked as "no topic").
 * @internal
 */
export function planBatch(rows: readonly ClaimedRow[], router: TopicRouter): BatchPlan {
  const groups = new Map<string, { items: PlannedItem[]; unroutable: ClaimedRow[] }>();
  for (const row of rows) {
    const key = aggregateKey(row);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { items: [], unroutable: [] }));
    const topic = router.topicFor(row.aggregateType, row.topic);
    if (topic === undefined || group.unroutable.length > 0) group.unroutable.push(row);
    else group.items.push({ row, record: toRecord(row, topic) });
  }
  const all = [...groups.values()];
  const routable = all.map((g) => g.items).filter((items) => items.length > 0);
  return {
    unroutable: all.map((g) => g.unroutable).filter((run) => run.length > 0),
    clean: routable.filter((items) => !items[0]!.row.suspect),
    suspects: routable.filter((items) => items[0]!.row.suspect),
  };
}

/**
 * Requests of at most `maxRequestBytes` (estimated: value, key and 300 bytes of headers and
 * framing per record), in id order: an aggregate's rows stay in order across requests.
 * @internal
 */
export function chunkByBytes(
  groups: readonly PlannedItem[][],
  maxRequestBytes: number,
): PlannedItem[][] {
  const items = groups.flat().sort((a, b) => Number(a.row.id) - Number(b.row.id));
  const chunks: PlannedItem[][] = [];
  let current: PlannedItem[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = item.record.value.length + item.record.key.length + 300;
    if (current.length > 0 && bytes + size > maxRequestBytes) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
