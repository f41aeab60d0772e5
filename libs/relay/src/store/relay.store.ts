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

type StoreOptions = Pick<
  ResolvedRelayOptions,
  'schema' | 'table' | 'synchronousCommit' | 'statementTimeoutMs'
>;

const NONE: ReadonlySet<string> = new Set();

/**
 * With asynchronous bookkeeping, one mark in this long commits synchronously: its WAL flush
 * covers every commit before it, so a crash forgets at most the marks of the last interval.
 */
export const SYNC_MARK_INTERVAL_MS = 200;

/** An array literal of digit strings, joined once instead of pg escaping each element (bound as a value). */
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

/** The relay's writes after the claim (fenced by the lease token) and its figures. @internal */
@Injectable()
export class RelayStore {
  private readonly sql: RelayStoreSql;
  private readonly pressureSql: ReturnType<typeof pressureRowSql>;
  private lastSyncMarkAt = -Infinity;
  private schemaChecked: () => void = () => undefined;
  /** Settles once `ensureSchema` has run, whatever its outcome. */
  readonly schemaSettled = new Promise<void>((resolve) => (this.schemaChecked = resolve));

  constructor(
    @Inject(RELAY_PG_POOL) private readonly pool: Pool,
    @Inject(RELAY_OPTIONS) private readonly options: StoreOptions,
  ) {
    this.sql = relayStoreSql(options);
    this.pressureSql = pressureRowSql(RELAY_MODULE, options.schema, options.table);
  }

  /** @throws RelaySchemaMissingError saying how to create what is missing */
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

  /** Counts a suspect's solo start; false when the lease is gone. */
  async start(leaseToken: string, id: string): Promise<boolean> {
    return (await this.pool.query(this.sql.start, [leaseToken, id])).rowCount === 1;
  }

  /**
   * Returns the ids it did not mark (lease lost).
   * @param again an earlier mark of these rows failed and may have committed unseen
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

  private markCommitMode(): 'on' | 'off' {
    const now = Date.now();
    if (this.options.synchronousCommit || now - this.lastSyncMarkAt < SYNC_MARK_INTERVAL_MS)
      return commitMode(this.options);
    this.lastSyncMarkAt = now;
    return 'on';
  }

  /** Returns the ids updated (lease still held). */
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

  async release(leaseToken: string, rows: readonly ReleaseUpdate[]): Promise<void> {
    if (rows.length === 0) return;
    await this.pool.query(this.sql.release, [
      leaseToken,
      rows.map((r) => r.id),
      rows.map((r) => r.started),
    ]);
  }

  /** Read from `floor` (`ClaimFloor.settled`; none: from the oldest end). */
  async stats(floor?: { readonly id: bigint; readonly auditMark: bigint }): Promise<RelayStats> {
    const values = [floor?.id.toString() ?? null, floor?.auditMark.toString() ?? '0'];
    return this.timed(async (c) => (await c.query<RelayStats>(this.sql.stats, values)).rows[0]!);
  }

  /** Under `statementTimeoutMs`: a slow statistics statement is cancelled rather than hold the horizon. */
  private timed<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work, this.timedBegin);
  }

  private get timedBegin(): string {
    return `BEGIN; SET LOCAL statement_timeout = ${Math.trunc(this.options.statementTimeoutMs)}`;
  }

  /** Undefined before the first row, or without the table. */
  async readPressure(): Promise<PressureRow | undefined> {
    const result = await this.pool.query<PressureRow>(this.pressureSql.read).catch((e: unknown) => {
      // No table yet (not migrated, `verifySchema: false`): this relay counts on its own.
      if ((e as { code?: string }).code === '42P01') return undefined;
      throw e;
    });
    return result?.rows[0];
  }

  /** This relay's figures, taken `ageMs` ago, fresh for `freshMs` by the database's clock. */
  async writePressure(
    relayId: string,
    freshMs: number,
    figures: object,
    ageMs: number,
  ): Promise<void> {
    const values = [relayId, freshMs, JSON.stringify(figures), ageMs];
    await this.pool.query(this.pressureSql.write, values);
  }

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
