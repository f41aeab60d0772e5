import { Inject, Injectable } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { inTransaction, pressureRowSql, type PressureRow } from '@nest-outbox/core/internal';
import { RELAY_MODULE, RELAY_OPTIONS, RELAY_PG_POOL } from '../relay.constants';
import { RelaySchemaMissingError } from '../errors/relay-schema-missing.error';
import { relayObjectNames, relaySchemaSql } from '../schema/relay-schema.sql';
import { commitMode } from '../schema/row-state.sql';
import type { OldestTransaction, OutboxTableStats, RelayStats } from './relay-stats';
import { relayStoreSql, type RelayStoreSql } from './relay-store.sql';

/** What the store needs of the relay options. @internal */
export type StoreOptions = Pick<
  ResolvedRelayOptions,
  'schema' | 'table' | 'synchronousCommit' | 'statementTimeoutMs'
>;

/** No id. */
const NONE: ReadonlySet<string> = new Set();

/**
 * With asynchronous bookkeeping, one mark in this long commits synchronously: its WAL flush
 * covers every commit before it, so a PostgreSQL crash forgets at most the marks of the last
 * interval (their events are published again), however far the WAL writer lags under load.
 */
export const SYNC_MARK_INTERVAL_MS = 200;

/**
 * A PostgreSQL array literal of numbers (ids and offsets are digit strings from PostgreSQL and
 * BigInt): joined once instead of pg escaping each element; bound as a value like any other.
 */
const numberArray = (values: readonly (string | number)[]) => `{${values.join(',')}}`;

/** Where a published record went. @internal */
export interface AckedRow {
  readonly id: string;
  readonly partition: number;
  readonly offset: string;
}

/** What happened to one row whose publish failed. @internal */
export interface FailureUpdate {
  readonly id: string;
  /** Counts as an attempt (false for throttling). */
  readonly counted: boolean;
  /** Park it (permanent error or attempts exhausted) instead of backing off. */
  readonly park: boolean;
  readonly delayMs: number;
  readonly kind: string;
  readonly error: string;
}

/** Rows handed back without a finished publish. `started` rows had their claim counted. @internal */
export interface ReleaseUpdate {
  readonly id: string;
  readonly started: boolean;
}

/**
 * The relay's PostgreSQL writes after the claim (start, mark, fail, release, each fenced by
 * the batch's lease token) and its figures (stats, the pressure row, schema check).
 * @internal
 */
@Injectable()
export class RelayStore {
  private readonly sql: RelayStoreSql;
  private readonly pressureSql: ReturnType<typeof pressureRowSql>;
  /** When the last synchronous mark was sent (`Date.now()`); none yet: the first one is. */
  private lastSyncMarkAt = -Infinity;
  private schemaChecked: () => void = () => undefined;
  /** Settles once `ensureSchema` has run, whatever its outcome (the relay's first statements wait for it). */
  readonly schemaSettled = new Promise<void>((resolve) => (this.schemaChecked = resolve));

  constructor(
    @Inject(RELAY_PG_POOL) private readonly pool: Pool,
    @Inject(RELAY_OPTIONS) private readonly options: StoreOptions,
  ) {
    this.sql = relayStoreSql(options);
    this.pressureSql = pressureRowSql(RELAY_MODULE, options.schema, options.table);
  }

  /**
   * Applies the relay's DDL when `install` is set, then (when `verify` is set) checks that
   * the outbox table and the audit table exist.
   * @throws RelaySchemaMissingError saying how to create what is missing
   */
  async ensureSchema(install: boolean, verify: boolean): Promise<void> {
    await this.checkSchema(install, verify).finally(() => this.schemaChecked());
  }

  private async checkSchema(install: boolean, verify: boolean): Promise<void> {
    if (install)
      for (const statement of relaySchemaSql(this.options)) await this.pool.query(statement);
    if (!verify) return;
    const names = relayObjectNames(this.options);
    const plain = (q: string) => q.replace(/"/g, '');
    const { rows } = await this.pool.query<Record<'outbox' | 'audit' | 'pressure', boolean>>(
      this.sql.exists,
      [plain(names.outbox), plain(names.audit), plain(names.pressure)],
    );
    if (!rows[0]?.outbox) throw new RelaySchemaMissingError(`the outbox table ${names.outbox}`);
    if (!rows[0]?.audit) throw new RelaySchemaMissingError(`the relay audit table ${names.audit}`);
    if (!rows[0]?.pressure)
      throw new RelaySchemaMissingError(`the relay pressure table ${names.pressure}`);
  }

  /** Counts the start of a suspect's solo publish; false when the lease is gone. */
  async start(leaseToken: string, id: string): Promise<boolean> {
    return (await this.pool.query(this.sql.start, [leaseToken, id])).rowCount === 1;
  }

  /**
   * Marks acknowledged rows published, in one statement that commits on its own. Returns the
   * ids it did not mark: their lease was lost (taken by another claim).
   * @param again the mark of these rows failed before (database unavailable) and may have
   *   committed unseen: a row this lease already marked counts as marked
   */
  async mark(
    leaseToken: string,
    acks: readonly AckedRow[],
    again = false,
  ): Promise<ReadonlySet<string>> {
    const { rows } = await this.pool.query<{ id: string }>(
      again ? this.sql.remark : this.sql.mark,
      [
        leaseToken,
        numberArray(acks.map((a) => a.id)),
        numberArray(acks.map((a) => a.partition)),
        numberArray(acks.map((a) => a.offset)),
        this.markCommitMode(),
      ],
    );
    return rows.length === 0 ? NONE : new Set(rows.map((r) => r.id));
  }

  /** `on` for every mark with `synchronousCommit`, else for one mark per `SYNC_MARK_INTERVAL_MS`. */
  private markCommitMode(): 'on' | 'off' {
    const now = Date.now();
    if (this.options.synchronousCommit || now - this.lastSyncMarkAt < SYNC_MARK_INTERVAL_MS)
      return commitMode(this.options);
    this.lastSyncMarkAt = now;
    return 'on';
  }

  /** Records failures (backoff or park); returns the ids actually updated (lease still held). */
  async fail(leaseToken: string, failures: readonly FailureUpdate[]): Promise<Set<string>> {
    if (failures.length === 0) return new Set();
    const result = await this.pool.query<{ id: string }>(this.sql.fail, [
      leaseToken,
      failures.map((f) => f.id),
      failures.map((f) => f.counted),
      failures.map((f) => f.park),
      failures.map((f) => Math.round(f.delayMs)),
      failures.map((f) => f.kind),
      failures.map((f) => f.error),
    ]);
    return new Set(result.rows.map((r) => r.id));
  }

  /** Hands rows back without a finished publish (their claim is not counted). */
  async release(leaseToken: string, rows: readonly ReleaseUpdate[]): Promise<void> {
    if (rows.length === 0) return;
    await this.pool.query(this.sql.release, [
      leaseToken,
      rows.map((r) => r.id),
      rows.map((r) => r.started),
    ]);
  }

  /**
   * Pending and parked counts and the age of the oldest unpublished event, read from `floor`
   * (the claim's, see `ClaimFloor.settled`; none: from the oldest end).
   */
  async stats(floor?: { readonly id: bigint; readonly auditMark: bigint }): Promise<RelayStats> {
    const values = [floor?.id.toString() ?? null, floor?.auditMark.toString() ?? '0'];
    return this.timed(async (c) => (await c.query<RelayStats>(this.sql.stats, values)).rows[0]!);
  }

  /**
   * One transaction under `statementTimeoutMs`: a statistics statement slowed by a lock or a
   * bad plan is cancelled (`57014`) rather than holding a snapshot, so the horizon, for long.
   */
  private timed<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work, this.timedBegin);
  }

  private get timedBegin(): string {
    return `BEGIN; SET LOCAL statement_timeout = ${Math.trunc(this.options.statementTimeoutMs)}`;
  }

  /** The pressure row as the relays publish it; undefined before the first, or without the table. */
  async readPressure(): Promise<PressureRow | undefined> {
    const result = await this.pool.query<PressureRow>(this.pressureSql.read).catch((e: unknown) => {
      // No table yet (not migrated, `verifySchema: false`): this relay counts on its own.
      if ((e as { code?: string }).code === '42P01') return undefined;
      throw e;
    });
    return result?.rows[0];
  }

  /**
   * Publishes this relay's figures, taken `ageMs` ago, fresh for `freshMs` from then by the
   * database's clock.
   */
  async writePressure(
    relayId: string,
    freshMs: number,
    figures: object,
    ageMs: number,
  ): Promise<void> {
    const values = [relayId, freshMs, JSON.stringify(figures), ageMs];
    await this.pool.query(this.pressureSql.write, values);
  }

  /**
   * Size, dead and live tuples and seconds since the last vacuum of the outbox table, and the
   * oldest transaction holding the database's xmin horizon (see `relayStoreSql`).
   */
  async tableStats(): Promise<{
    table: OutboxTableStats | undefined;
    oldest: OldestTransaction | undefined;
  }> {
    const table = relayObjectNames(this.options).outbox.replace(/"/g, '');
    return this.timed(async (c) => ({
      table: (await c.query<OutboxTableStats>(this.sql.tableStats, [table])).rows[0],
      oldest: (await c.query<OldestTransaction>(this.sql.oldestTransaction)).rows[0],
    }));
  }
}
