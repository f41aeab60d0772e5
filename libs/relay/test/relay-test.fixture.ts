import { uuidv7 } from '@nest-outbox/core';
import { outboxSchemaSql } from '@nest-outbox/outbox';
import { Global, Module, type Provider } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  DATABASE_URL,
  KAFKA_BROKERS,
  createTestSchema,
  type ConsumedRecord,
  type TestSchema,
} from '@test/support';
import { logLevel } from 'kafkajs';
import type { Pool } from 'pg';
import type { RelayModuleOptions } from '../src/options/relay-options.interface';
import { RelayModule } from '../src/relay.module';
import { relaySchemaSql } from '../src/schema/relay-schema.sql';

/** A test schema with the outbox table and the relay's objects. */
export async function createRelaySchema(prefix: string): Promise<TestSchema> {
  const schema = await createTestSchema(prefix);
  for (const s of [
    ...outboxSchemaSql({ schema: schema.name, table: 'outbox' }),
    ...relaySchemaSql({ schema: schema.name, table: 'outbox' }),
  ]) {
    await schema.pool.query(s);
  }
  return schema;
}

export interface TestEvent {
  aggregateType?: string;
  aggregateId: string;
  topic?: string | null;
  payload?: unknown;
  /** Raw payload text, stored as given (json column keeps the bytes). */
  rawPayload?: string;
  /** `occurred_at` as PostgreSQL text (default: now). */
  occurredAt?: string;
}

/** Inserts events like a producer would: per aggregate, the next version, under its advisory lock. */
export class TestProducer {
  private readonly versions = new Map<string, number>();
  readonly written: { eventId: string; aggregateId: string; version: number }[] = [];

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly table = 'outbox',
  ) {}

  /** One transaction per call; events are inserted in array order. */
  async write(events: TestEvent[]): Promise<string[]> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const keys = [
        ...new Set(events.map((e) => `${e.aggregateType ?? 'thing'}:${e.aggregateId}`)),
      ].sort();
      for (const key of keys)
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
      const rows = events.map((e) => {
        const key = `${e.aggregateType ?? 'thing'}:${e.aggregateId}`;
        const version = (this.versions.get(key) ?? 0) + 1;
        this.versions.set(key, version);
        return { e, version, eventId: uuidv7() };
      });
      await client.query(
        `INSERT INTO "${this.schema}"."${this.table}"
           (event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version, occurred_at, payload, headers, topic)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::text[], $6::bigint[], $7::timestamptz[], $8::json[], $9::jsonb[], $10::text[])`,
        [
          rows.map((r) => r.eventId),
          rows.map(() => 'thing.happened'),
          rows.map(() => 1),
          rows.map((r) => r.e.aggregateType ?? 'thing'),
          rows.map((r) => r.e.aggregateId),
          rows.map((r) => r.version),
          rows.map((r) => r.e.occurredAt ?? new Date()),
          rows.map(
            (r) =>
              r.e.rawPayload ??
              JSON.stringify(r.e.payload ?? { v: r.version, id: r.e.aggregateId }),
          ),
          rows.map(() =>
            JSON.stringify({
              traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
            }),
          ),
          rows.map((r) => r.e.topic ?? null),
        ],
      );
      await client.query('COMMIT');
      for (const r of rows)
        this.written.push({ eventId: r.eventId, aggregateId: r.e.aggregateId, version: r.version });
      return rows.map((r) => r.eventId);
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
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

/**
 * Checks the delivery invariants on what was read back: every expected event is there (I1),
 * per key the first occurrences follow aggregate_version (I3), duplicates only repeat
 * earlier records. Returns the event ids seen more than once.
 */
export function checkDelivery(
  records: ConsumedRecord[],
  expected: { eventId: string; aggregateId: string; version: number }[],
): { duplicates: string[]; missing: string[]; orderViolations: string[] } {
  const seen = new Set<string>();
  const duplicates: string[] = [];
  const lastVersion = new Map<string, number>();
  const orderViolations: string[] = [];
  for (const r of records) {
    const id = r.headers.event_id!;
    if (seen.has(id)) {
      duplicates.push(id);
      continue;
    }
    seen.add(id);
    const version = Number(r.headers.aggregate_version);
    const key = r.key ?? '';
    const last = lastVersion.get(key) ?? 0;
    if (version !== last + 1) orderViolations.push(`${key}: v${version} after v${last}`);
    lastVersion.set(key, Math.max(last, version));
  }
  const missing = expected.filter((e) => !seen.has(e.eventId)).map((e) => e.eventId);
  return { duplicates, missing, orderViolations };
}

/** Counts rows still pending in the outbox. */
export async function pendingCount(pool: Pool, schema: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE published_at IS NULL AND skipped_at IS NULL`,
  );
  return rows[0]!.n;
}

/** Options shared by the integration tests: short lease, fast polling, quiet housekeeping. */
export function testRelayOptions(
  schema: string,
  overrides: Partial<RelayModuleOptions> = {},
): RelayModuleOptions {
  return {
    connection: DATABASE_URL,
    schema,
    table: 'outbox',
    kafka: { clientId: 'relay-test', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING },
    routing: { defaultTopic: 'unused-default' },
    leaseMs: 5000,
    publishTimeoutMs: 3000,
    polling: { minMs: 20, maxMs: 200 },
    backoff: { baseMs: 100, capMs: 1000 },
    retention: false,
    ...overrides,
  };
}

/** Boots a RelayModule in a Nest testing module (bootstrap hooks run: the loop starts). */
export async function startRelay(
  options: RelayModuleOptions,
  providers: Provider[] = [],
): Promise<TestingModule> {
  @Global()
  @Module({ providers, exports: providers.map((p) => ('provide' in p ? p.provide : p)) })
  class ExtrasModule {}
  const moduleRef = await Test.createTestingModule({
    imports: [ExtrasModule, RelayModule.forRoot(options)],
  }).compile();
  moduleRef.useLogger(false);
  await moduleRef.init();
  return moduleRef;
}
