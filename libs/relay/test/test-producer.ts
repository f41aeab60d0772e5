import { uuidv7 } from '@nest-outbox/core';
import { inTransaction } from '@nest-outbox/core/internal';
import type { Pool } from 'pg';

export interface TestEvent {
  aggregateType?: string;
  aggregateId: string;
  topic?: string | null;
  payload?: unknown;
  /** Raw payload text, stored as given (json column keeps the bytes). */
  rawPayload?: string;
  /** `occurred_at` as PostgreSQL text (default: now). */
  occurredAt?: string;
  /** The event id (default: a fresh UUIDv7); its time picks the partition of a partitioned outbox. */
  eventId?: string;
}

/** An event the producer wrote, for the delivery check. */
export interface WrittenEvent {
  readonly eventId: string;
  readonly aggregateId: string;
  readonly version: number;
}

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** Inserts events like a producer would: per aggregate, the next version, under its advisory lock. */
export class TestProducer {
  private readonly versions = new Map<string, number>();
  readonly written: WrittenEvent[] = [];

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly table = 'outbox',
  ) {}

  /** One transaction per call; events are inserted in array order. */
  async write(events: TestEvent[]): Promise<string[]> {
    const key = (e: TestEvent) => `${e.aggregateType ?? 'thing'}:${e.aggregateId}`;
    const rows = await inTransaction(this.pool, async (client) => {
      for (const k of [...new Set(events.map(key))].sort())
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [k]);
      const versions = new Map(this.versions);
      const planned = events.map((e) => {
        const version = (versions.get(key(e)) ?? 0) + 1;
        versions.set(key(e), version);
        return { e, version, eventId: e.eventId ?? uuidv7() };
      });
      await client.query(
        `INSERT INTO "${this.schema}"."${this.table}"
           (event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version, occurred_at, payload, headers, topic)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::text[], $6::bigint[], $7::timestamptz[], $8::json[], $9::jsonb[], $10::text[])`,
        [
          planned.map((r) => r.eventId),
          planned.map(() => 'thing.happened'),
          planned.map(() => 1),
          planned.map((r) => r.e.aggregateType ?? 'thing'),
          planned.map((r) => r.e.aggregateId),
          planned.map((r) => r.version),
          planned.map((r) => r.e.occurredAt ?? new Date()),
          planned.map(
            (r) =>
              r.e.rawPayload ??
              JSON.stringify(r.e.payload ?? { v: r.version, id: r.e.aggregateId }),
          ),
          planned.map(() => JSON.stringify({ traceparent: TRACEPARENT })),
          planned.map((r) => r.e.topic ?? null),
        ],
      );
      return planned;
    });
    for (const r of rows) {
      this.versions.set(key(r.e), r.version);
      this.written.push({ eventId: r.eventId, aggregateId: r.e.aggregateId, version: r.version });
    }
    return rows.map((r) => r.eventId);
  }

  /** Makes `aggregateId`'s events ten minutes old. */
  async age(aggregateId: string): Promise<void> {
    await this.pool.query(
      `UPDATE "${this.schema}"."${this.table}" SET created_at = now() - interval '10 minutes'
        WHERE aggregate_id = $1`,
      [aggregateId],
    );
  }

  /** A poisoned aggregate: three old events, the first parked, the others held behind it. */
  async writePoisoned(aggregateId: string): Promise<void> {
    await this.write([{ aggregateId }, { aggregateId }, { aggregateId }]);
    await this.age(aggregateId);
    const table = `"${this.schema}"."${this.table}"`;
    await this.pool.query(
      `UPDATE ${table} SET parked_at = now(), parked_reason = 'permanent: test'
        WHERE id = (SELECT min(id) FROM ${table} WHERE aggregate_id = $1)`,
      [aggregateId],
    );
  }

  /** `count` events spread over `keys` aggregates, in transactions of `perTx`. */
  async writeMany(count: number, keys: number, perTx = 100, prefix = 'k'): Promise<void> {
    for (let i = 0; i < count; i += perTx) {
      const events: TestEvent[] = [];
      for (let j = i; j < Math.min(count, i + perTx); j++)
        events.push({ aggregateId: `${prefix}${j % keys}` });
      await this.write(events);
    }
  }
}
