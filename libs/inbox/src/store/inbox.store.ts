import { Inject, Injectable } from '@nestjs/common';
import type { TransactionalAdapter, TransactionHost } from '@nestjs-cls/transactional';
import { type EventEnvelope } from '@nest-outbox/core';
import { sqlExecutorOf, type PartitionDb, type SqlExecutor } from '@nest-outbox/core/internal';
import { INBOX_OPTIONS, INBOX_TRANSACTION_HOST } from '../inbox.constants';
import type { ResolvedInboxOptions } from '../options/inbox-options.resolver';
import { inboxSchemaSql, REJECTED_EVIDENCE } from '../schema/inbox-schema.sql';
import { inboxStatements } from './inbox.sql';
import { pgHeaders, pgText } from './pg-text';

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
  /** Exact bytes, stored as `bytea` (see `REJECTED_EVIDENCE`). */
  readonly evidence?: RejectionEvidence;
}

/** What a rejected row keeps of the record's bytes (never the value itself). @internal */
export interface RejectionEvidence {
  readonly key?: Buffer;
  readonly headers?: Buffer;
  readonly valueLength?: number;
  readonly valueSha256?: Buffer;
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

/** The inbox's SQL, every statement on `TransactionHost.tx` (`sqlExecutorOf`). @internal */
@Injectable()
export class InboxStore {
  private readonly sql: ReturnType<typeof inboxStatements>;

  constructor(
    @Inject(INBOX_TRANSACTION_HOST)
    private readonly txHost: TransactionHost<TransactionalAdapter<unknown, unknown, unknown>>,
    @Inject(INBOX_OPTIONS) private readonly options: ResolvedInboxOptions,
  ) {
    this.sql = inboxStatements(options.tables);
  }

  /** The current transaction's executor (the non-transactional one outside a transaction). */
  private get db(): SqlExecutor {
    return sqlExecutorOf(this.txHost.tx);
  }

  async installSchema(): Promise<void> {
    for (const sql of inboxSchemaSql(this.options.tables.names)) await this.db.query(sql, []);
  }

  /** The inbox tables that do not exist, and the columns missing from those that do (quoted names). */
  async missingTables(): Promise<string[]> {
    const { inbox, rejected, versions } = this.options.tables;
    const rows = await this.db.query<{ name: string; found: string | null }>(
      'SELECT name, to_regclass(name)::text AS found FROM unnest($1::text[]) AS name',
      [[inbox, rejected, versions]],
    );
    const columns = await this.db.query<{ name: string }>(this.sql.missingColumns, [
      rejected,
      REJECTED_EVIDENCE.map(([column]) => column),
    ]);
    return [
      ...rows.filter((r) => r.found === null).map((r) => r.name),
      ...columns.map((c) => `${rejected}."${c.name}"`),
    ];
  }

  /**
   * Registers many records' (consumer, event_id) in ONE statement; returns the new event ids.
   * Each event id once; inserted in event-id order so concurrent chunks lock in the same order.
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
    const rows = await this.db.query<{ event_id: string }>(this.sql.registerMany, [
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
    const rows = await this.db.query<{ previous: string | null }>(this.sql.version, [
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

  /**
   * Records a rejected record once per (consumer, topic, partition, offset); text and `jsonb` via
   * `pgText` / `pgHeaders`, exact bytes in the `bytea` evidence columns.
   */
  async recordRejection(row: RejectionRow): Promise<void> {
    const text = (value: string | undefined, max: number) =>
      value === undefined ? null : pgText(value, max);
    await this.db.query(this.sql.reject, [
      pgText(row.consumer, 200),
      row.topic,
      row.partition,
      row.offset,
      row.reasonCode,
      pgText(row.reason, 2000),
      text(row.eventId, 200),
      text(row.eventType, 200),
      text(row.aggregateId, 200),
      row.attempts,
      JSON.stringify(pgHeaders(row.headers)),
      row.deadLetterTopic ?? null,
      row.evidence?.key ?? null,
      row.evidence?.headers ?? null,
      row.evidence?.valueLength ?? null,
      row.evidence?.valueSha256 ?? null,
    ]);
  }

  /** The fallback row when the full one is refused: position, reason code and attempts only. */
  async recordMinimalRejection(row: RejectionRow, reason: string): Promise<void> {
    await this.db.query(this.sql.rejectMinimal, [
      pgText(row.consumer, 200),
      row.topic,
      row.partition,
      row.offset,
      row.reasonCode,
      pgText(reason, 2000),
      row.attempts,
    ]);
  }

  /**
   * Deletes up to `limit` processed rows older than the retention; returns how many. `table`
   * (quoted) is pruned instead of the inbox: its default partition (rows are picked by `ctid`,
   * which names a row only within one table).
   */
  async pruneBatch(retentionMs: number, limit: number, table?: string): Promise<number> {
    const sql = table
      ? inboxStatements({ ...this.options.tables, inbox: table }).prune
      : this.sql.prune;
    const rows = await this.db.query<{ pruned: number }>(sql, [retentionMs, limit]);
    return Number(rows[0]?.pruned ?? 0);
  }

  /** The database as partition maintenance reaches it: transactions through the host. */
  partitionDb(): PartitionDb {
    return {
      sql: this.db,
      transaction: (work) => this.txHost.withTransaction(() => work(this.db)),
    };
  }
}
