import { NestOutboxError } from '@nest-outbox/core';
import { NoTopicError } from '../errors/no-topic.error';
import { UnencodableEventError } from '../errors/unencodable-event.error';
import type { PublishRecord } from '../publisher/relay-publisher.interface';
import { toRecord } from './row-record';
import type { TopicRouter } from '../routing/topic-router';
import type { ClaimedRow } from '../claim/claimed-batch';

/** A claimed row and the record it becomes. @internal */
export interface PlannedItem {
  readonly row: ClaimedRow;
  readonly record: PublishRecord;
}

/** A row that has no record, the rest of its run after it, and why (parked, released). @internal */
export interface RefusedRun {
  readonly run: readonly ClaimedRow[];
  /** The resolved topic, `?` when there is none. */
  readonly topic: string;
  readonly error: NestOutboxError;
}

/** How a claimed batch is sent: pure functions of its rows, no I/O. @internal */
export interface BatchPlan {
  /** Per aggregate, its first row without a record (no topic, or unencodable) and the rest. */
  readonly refused: readonly RefusedRun[];
  /** Aggregates whose head is clean: sent together, in chunks. */
  readonly clean: readonly PlannedItem[][];
  /** Aggregates whose head is a suspect (an earlier publish never finished): sent alone. */
  readonly suspects: readonly PlannedItem[][];
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

/** The record of `row`, or why it has none (any error of the encoding is the row's own). */
function recordOf(row: ClaimedRow, topic: string | undefined): PublishRecord | NestOutboxError {
  if (topic === undefined) return new NoTopicError(row.aggregateType);
  try {
    return toRecord(row, topic);
  } catch (error) {
    if (error instanceof UnencodableEventError) return error;
    const name = error instanceof Error ? error.name : typeof error;
    return new UnencodableEventError(`the row's record could not be built (${name})`);
  }
}

/**
 * Routes and encodes each row and splits the batch by aggregate: once a row of a run has no
 * record, it is parked with the reason and the rest of its run waits. Never throws.
 * @internal
 */
export function planBatch(rows: readonly ClaimedRow[], router: TopicRouter): BatchPlan {
  const groups = new Map<string, { items: PlannedItem[]; refused?: RefusedRun }>();
  for (const row of rows) {
    const key = aggregateKey(row);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { items: [] }));
    if (group.refused) {
      (group.refused.run as ClaimedRow[]).push(row);
      continue;
    }
    const topic = router.topicFor(row.aggregateType, row.topic);
    const record = recordOf(row, topic);
    if (record instanceof NestOutboxError)
      group.refused = { run: [row], topic: topic ?? '?', error: record };
    else group.items.push({ row, record });
  }
  const all = [...groups.values()];
  const routable = all.map((g) => g.items).filter((items) => items.length > 0);
  return {
    refused: all.flatMap((g) => (g.refused ? [g.refused] : [])),
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
