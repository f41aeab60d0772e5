import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { EventEnvelope } from '@nest-outbox/core';
import { INBOX_OPTIONS } from '../inbox.constants';
import type { ResolvedInboxOptions } from '../inbox-options.resolver';
import { inboxSchemaSql } from '../schema/inbox-schema.sql';

/** Where a record came from. @internal */
export interface RecordPosition {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

/** A record refused or given up, as stored (no payload). @internal */
export interface RejectionRow extends RecordPosition {
  readonly consumer: string;
  readonly reasonCode: string;
  readonly reason: string;
  readonly eventId?: string;
  readonly eventType?: string;
  readonly aggregateId?: string;
  readonly attempts: number;
  readonly headers: Record<string, string>;
  readonly deadLetterTopic?: string;
}

/** An accepted record to register in bulk (one chunk of one partition). @internal */
export interface PendingRegistration {
  readonly event: EventEnvelope;
  readonly offset: string;
}

/** Outcome of the version check. @internal */
export type VersionCheck =
  | { readonly kind: 'next' | 'first' }
  | { readonly kind: 'gap' | 'stale'; readonly last: number };

/**
 * The inbox's SQL, in one place. Every statement runs on `TransactionHost.tx`: inside the
 * interceptor's transaction when there is one, on the DataSource otherwise.
 * @internal
 */
@Injectable()
export class InboxStore {
  private readonly sql: ReturnType<typeof statements>;

  constructor(
    @Inject(TransactionHost) private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    @Inject(INBOX_OPTIONS) private readonly options: ResolvedInboxOptions,
  ) {
    this.sql = statements(options);
  }

  async createSchema(): Promise<void> {
    for (const sql of inboxSchemaSql(this.options.tables.names)) await this.txHost.tx.query(sql);
  }

  /** Registers (consumer, event_id); false when it was already there (a duplicate). */
  async register(consumer: string, event: EventEnvelope, at: RecordPosition): Promise<boolean> {
    const rows: unknown[] = await this.txHost.tx.query(this.sql.register, [
      consumer,
      event.eventId,
      event.eventType,
      event.schemaVersion,
      event.aggregateType,
      event.aggregateId,
      event.aggregateVersion,
      at.topic,
      at.partition,
      at.offset,
    ]);
    return rows.length === 1;
  }

  /**
   * Registers the (consumer, event_id) of many accepted records of one partition in ONE
   * statement; returns the event ids whose row was new. The caller passes each event id
   * once (its first offset); rows are inserted in event-id order so that concurrent chunks
   * take the unique-index locks in the same order.
   */
  async registerMany(
    consumer: string,
    at: Pick<RecordPosition, 'topic' | 'partition'>,
    pending: readonly PendingRegistration[],
  ): Promise<Set<string>> {
    if (pending.length === 0) return new Set();
    const sorted = [...pending].sort((a, b) =>
      a.event.eventId < b.event.eventId ? -1 : a.event.eventId > b.event.eventId ? 1 : 0,
    );
    const column = <T>(pick: (p: PendingRegistration) => T) => sorted.map(pick);
    const rows: { event_id: string }[] = await this.txHost.tx.query(this.sql.registerMany, [
      consumer,
      at.topic,
      at.partition,
      column((p) => p.event.eventId),
      column((p) => p.event.eventType),
      column((p) => p.event.schemaVersion),
      column((p) => p.event.aggregateType),
      column((p) => p.event.aggregateId),
      column((p) => p.event.aggregateVersion),
      column((p) => p.offset),
    ]);
    return new Set(rows.map((r) => r.event_id));
  }

  /** Compares the event's aggregate_version with the last applied one and records it. */
  async checkVersion(consumer: string, event: EventEnvelope): Promise<VersionCheck> {
    const rows: { previous: string | null }[] = await this.txHost.tx.query(this.sql.version, [
      consumer,
      event.aggregateType,
      event.aggregateId,
      event.aggregateVersion,
    ]);
    const previous = rows[0]?.previous;
    if (previous === null || previous === undefined) return { kind: 'first' };
    const last = Number(previous);
    if (event.aggregateVersion === last + 1) return { kind: 'next' };
    return { kind: event.aggregateVersion <= last ? 'stale' : 'gap', last };
  }

  /** Records a rejected or dead-lettered record once per (consumer, topic, partition, offset). */
  async recordRejection(row: RejectionRow): Promise<void> {
    await this.txHost.tx.query(this.sql.reject, [
      row.consumer,
      row.topic,
      row.partition,
      row.offset,
      row.reasonCode,
      row.reason.slice(0, 2000),
      row.eventId?.slice(0, 200) ?? null,
      row.eventType?.slice(0, 200) ?? null,
      row.aggregateId?.slice(0, 200) ?? null,
      row.attempts,
      JSON.stringify(row.headers),
      row.deadLetterTopic ?? null,
    ]);
  }

  /** Deletes up to `limit` processed rows older than the retention; returns how many. */
  async pruneBatch(retentionMs: number, limit: number): Promise<number> {
    const result: [unknown[], number] = await this.txHost.tx.query(this.sql.prune, [
      retentionMs,
      limit,
    ]);
    return result[1];
  }
}

function statements({ tables }: ResolvedInboxOptions) {
  return {
    register: `INSERT INTO ${tables.inbox} (consumer, event_id, event_type, schema_version, aggregate_type,
  aggregate_id, aggregate_version, topic, kafka_partition, kafka_offset)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (consumer, event_id) DO NOTHING
RETURNING 1 AS inserted`,
    registerMany: `INSERT INTO ${tables.inbox} (consumer, event_id, event_type, schema_version, aggregate_type,
  aggregate_id, aggregate_version, topic, kafka_partition, kafka_offset)
SELECT $1, r.event_id, r.event_type, r.schema_version, r.aggregate_type, r.aggregate_id,
  r.aggregate_version, $2, $3, r.kafka_offset
FROM unnest($4::uuid[], $5::text[], $6::integer[], $7::text[], $8::text[], $9::bigint[], $10::bigint[])
  WITH ORDINALITY AS r(event_id, event_type, schema_version, aggregate_type, aggregate_id,
    aggregate_version, kafka_offset, ord)
ORDER BY r.ord
ON CONFLICT (consumer, event_id) DO NOTHING
RETURNING event_id::text AS event_id`,
    // The row lock of prev serialises concurrent deliveries of one aggregate.
    version: `WITH prev AS (
  SELECT last_version FROM ${tables.versions}
  WHERE consumer = $1 AND aggregate_type = $2 AND aggregate_id = $3 FOR UPDATE)
INSERT INTO ${tables.versions} AS v (consumer, aggregate_type, aggregate_id, last_version)
VALUES ($1, $2, $3, $4)
ON CONFLICT (consumer, aggregate_type, aggregate_id)
  DO UPDATE SET last_version = GREATEST(v.last_version, EXCLUDED.last_version), updated_at = now()
RETURNING (SELECT last_version FROM prev) AS previous`,
    reject: `INSERT INTO ${tables.rejected} (consumer, topic, kafka_partition, kafka_offset, reason_code, reason,
  event_id, event_type, aggregate_id, attempts, headers, dead_letter_topic)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12)
ON CONFLICT (consumer, topic, kafka_partition, kafka_offset) DO NOTHING`,
    prune: `DELETE FROM ${tables.inbox} WHERE ctid = ANY(ARRAY(
  SELECT ctid FROM ${tables.inbox}
  WHERE processed_at < now() - $1::double precision * interval '1 millisecond'
  LIMIT $2))`,
  };
}
