import { NestOutboxError } from '../nest-outbox.error';
import { qualifiedTable } from '../sql-identifier';
import { type SqlExecutor } from '../sql/sql-executor';
import {
  leftoverComment,
  readPartitionState,
  type PartitionState,
  type RangePartition,
} from './partition-catalog.sql';
import {
  partitionName,
  periodMs,
  periodStart,
  policyComment,
  uuidAt,
  type PartitionPolicy,
} from './partition-period';

/** Periods created ahead of the current one. @internal */
export const PERIODS_AHEAD = 3;
/** A partitioned parent is analyzed at least this often (autovacuum never analyzes one). */
const ANALYZE_EVERY_MS = 3_600_000;

/** One partitioned table of a library (unquoted names). @internal */
export interface PartitionedTable {
  readonly module: string;
  readonly schema: string;
  readonly table: string;
  /** Storage parameters of each partition, for example `fillfactor = 80`. */
  readonly storage?: string;
}

/** What a maintenance pass keeps, and what makes an old partition safe to drop. @internal */
export interface PartitionRetention {
  /** The retention (the policy's floor applies if longer); `Infinity` drops nothing. */
  readonly keepMs: number;
  /** Detach old partitions and keep them as tables, instead of dropping them. */
  readonly detachOnly?: boolean;
  /**
   * One row `{ settled: boolean }`: partition `p` (qualified) holds nothing still to do and
   * nothing younger than `now() - $1` milliseconds. Runs twice: before the lock, and again on
   * the detached partition in the transaction that detached it.
   */
  readonly settledSql: (p: string) => string;
  /** Statements run on a detached partition `p` before it is dropped (rows to keep elsewhere). */
  readonly beforeDropSql?: (p: string) => string[];
}

/** How the caller reaches the database. @internal */
export interface PartitionDb {
  /** Runs `work` in one transaction. */
  transaction<T>(work: (sql: SqlExecutor) => Promise<T>): Promise<T>;
  /** Statements outside a transaction. */
  readonly sql: SqlExecutor;
}

/** What one maintenance pass did (unquoted partition names). @internal */
export interface PartitionPass {
  readonly created: string[];
  readonly dropped: string[];
  /** Detached and kept (archive mode). */
  readonly detached: string[];
  /** Old enough to go, kept: they still hold a row to publish or a row too young. */
  readonly held: string[];
  /** Not created: the default partition holds rows of their range. */
  readonly overlapping: string[];
  readonly analyzed: boolean;
}

/** `migrate --partition` met a table it cannot partition, or a different policy. @publicApi */
export class PartitionSetupError extends NestOutboxError {}

/** The advisory lock (two-int form) of partition DDL on one parent. */
const LOCK = (parent: string) =>
  `SELECT pg_try_advisory_xact_lock(1852796278, hashtext('${parent}')) AS ok`;
/** Outcome of a transaction that must roll back without it being an error. */
class Rollback extends Error {}

/**
 * Creates partitions ahead, drops (or detaches) settled old ones, and analyzes the parent of
 * one range-partitioned table (partitioned by a UUIDv7 column), with no extension. DDL runs
 * under `lock_timeout` and a try-lock per parent: a busy table or another instance at it is
 * left to the next pass.
 * @internal
 */
export class PartitionMaintainer {
  private readonly parent: string;
  private analyzedAt = 0;

  constructor(
    private readonly spec: PartitionedTable,
    private readonly lockTimeoutMs = 2000,
  ) {
    this.parent = qualifiedTable(spec.module, spec.schema, spec.table);
  }

  state(sql: SqlExecutor): Promise<PartitionState> {
    return readPartitionState(sql, this.spec.schema, this.spec.table);
  }

  /**
   * Statements (in the caller's transaction) that make a freshly created partitioned parent
   * ready: the policy comment, the default partition, the current period and those ahead.
   * @throws PartitionSetupError when the table is an ordinary one, or partitioned differently
   */
  async install(sql: SqlExecutor, policy: PartitionPolicy): Promise<string[]> {
    const state = await this.state(sql);
    if (state.kind === 'plain')
      throw new PartitionSetupError(
        `${this.parent} exists as an ordinary table: --partition applies when migrate creates it. ` +
          'Migrate a new partitioned table (--table <new name>) and move to it (docs/PARTITIONS.md)',
      );
    if (state.policy && state.policy.period !== policy.period)
      throw new PartitionSetupError(
        `${this.parent} is partitioned ${state.policy.period}, not ${policy.period}: the period ` +
          `cannot change; run migrate with --partition ${state.policy.period}`,
      );
    const foreign = !state.policy && (state.ranges.length > 0 || state.defaultPartition);
    if (state.kind === 'partitioned' && foreign)
      throw new PartitionSetupError(
        `${this.parent} is partitioned, but not by nest-outbox (no policy comment): drop --partition`,
      );
    for (const statement of this.setupSql(policy)) await sql.query(statement, []);
    const after = await this.state(sql);
    const created: string[] = [];
    for (const range of this.missing(after, policy, 1))
      if (await this.create(sql, after, range)) created.push(range.name);
    return created;
  }

  /**
   * One pass: partitions ahead, then old partitions settled for `keepMs` (the larger of the
   * policy's floor and `keepMs`; `Infinity`: none) dropped, or only detached with `detachOnly`;
   * the parent analyzed when anything changed or an hour went by. `undefined`: not partitioned.
   */
  async maintain(
    db: PartitionDb,
    retention: PartitionRetention,
  ): Promise<PartitionPass | undefined> {
    const state = await this.state(db.sql);
    if (state.kind !== 'partitioned' || !state.policy) return undefined;
    const pass: PartitionPass = {
      created: [],
      dropped: [],
      detached: [],
      held: [],
      overlapping: [],
      analyzed: false,
    };
    for (const range of this.missing(state, state.policy, 0)) {
      const made = await this.locked(db, (sql) => this.create(sql, state, range));
      if (made) pass.created.push(range.name);
      else if (made === false) pass.overlapping.push(range.name);
    }
    for (const name of state.leftovers) {
      await this.drop(db, name, retention);
      pass.dropped.push(name);
    }
    const keepMs = Math.max(state.policy.keepMs, retention.keepMs);
    if (Number.isFinite(keepMs)) {
      const cutoff = state.nowMs - keepMs;
      for (const range of state.ranges.filter((r) => r.to <= cutoff))
        await this.retire(db, range.name, { ...retention, keepMs }, pass);
    }
    const changed = pass.created.length + pass.dropped.length + pass.detached.length > 0;
    if (changed || Date.now() - this.analyzedAt >= ANALYZE_EVERY_MS) {
      await db.sql.query(`ANALYZE ${this.parent}`, []);
      this.analyzedAt = Date.now();
      (pass as { analyzed: boolean }).analyzed = true;
    }
    return pass;
  }

  /**
   * What marks a fresh parent as nest-outbox's: the policy comment, and the default partition
   * (rows of a range with no partition go there; an insert never fails for want of one).
   */
  setupSql(policy: PartitionPolicy): string[] {
    const fallback = this.quoted(`${this.spec.table}_default`);
    return [
      `COMMENT ON TABLE ${this.parent} IS '${policyComment(policy)}'`,
      `CREATE TABLE IF NOT EXISTS ${fallback} PARTITION OF ${this.parent} DEFAULT${this.with()}`,
    ];
  }

  /**
   * The partitions of the `back` periods before the current one (a producer's clock may lag
   * the database's), the current one and those ahead, that do not exist.
   */
  private missing(state: PartitionState, policy: PartitionPolicy, back: number): RangePartition[] {
    const step = periodMs(policy.period);
    const current = periodStart(policy.period, state.nowMs);
    const wanted: RangePartition[] = [];
    for (let from = current - back * step; from <= current + PERIODS_AHEAD * step; from += step) {
      const to = from + step;
      if (state.ranges.some((r) => r.from < to && from < r.to)) continue;
      wanted.push({ name: partitionName(this.spec.table, policy.period, from), from, to });
    }
    return wanted;
  }

  /**
   * Creates and attaches one partition: ATTACH takes a lighter lock on the parent than
   * `CREATE TABLE ... PARTITION OF`, so writers to other partitions never wait. `false` when
   * the default partition holds rows of its range (they stay there, and so does the range).
   */
  private async create(
    sql: SqlExecutor,
    state: PartitionState,
    range: RangePartition,
  ): Promise<boolean> {
    const bounds = [uuidAt(range.from), uuidAt(range.to)];
    if (state.defaultPartition) {
      const [row] = await sql.query<{ found: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM ${this.quoted(state.defaultPartition)}
           WHERE event_id >= $1::uuid AND event_id < $2::uuid) AS found`,
        bounds,
      );
      if (row?.found) return false;
    }
    const part = this.quoted(range.name);
    await sql.query(
      `CREATE TABLE ${part} (LIKE ${this.parent} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)${this.with()}`,
      [],
    );
    await sql.query(
      `ALTER TABLE ${this.parent} ATTACH PARTITION ${part} FOR VALUES FROM ('${bounds[0]}') TO ('${bounds[1]}')`,
      [],
    );
    return true;
  }

  /**
   * Detaches an old partition if it is settled, checking again once detached (the detach holds
   * the parent's lock: nothing can write to it any more), then drops it in a second transaction
   * (or keeps it, detached). A row found to publish rolls the detach back.
   */
  private async retire(
    db: PartitionDb,
    name: string,
    retention: PartitionRetention,
    pass: PartitionPass,
  ): Promise<void> {
    const part = this.quoted(name);
    const detachOnly = retention.detachOnly === true;
    const settled = async (sql: SqlExecutor) =>
      (await sql.query<{ settled: boolean }>(retention.settledSql(part), [retention.keepMs]))[0]
        ?.settled;
    if (!(await settled(db.sql))) {
      pass.held.push(name);
      return;
    }
    const done = await this.locked(db, async (sql) => {
      await sql.query(`ALTER TABLE ${this.parent} DETACH PARTITION ${part}`, []);
      if (!(await settled(sql))) throw new Rollback();
      if (!detachOnly)
        await sql.query(`COMMENT ON TABLE ${part} IS '${leftoverComment(this.parent)}'`, []);
      return true;
    });
    if (!done) {
      if (done === false) pass.held.push(name);
      return;
    }
    if (detachOnly) pass.detached.push(name);
    else {
      await this.drop(db, name, retention);
      pass.dropped.push(name);
    }
  }

  /** Drops a detached partition, after `beforeDropSql`. */
  private async drop(db: PartitionDb, name: string, retention: PartitionRetention): Promise<void> {
    const part = this.quoted(name);
    await db.transaction(async (sql) => {
      for (const statement of retention.beforeDropSql?.(part) ?? []) await sql.query(statement, []);
      await sql.query(`DROP TABLE ${part}`, []);
    });
  }

  /**
   * `work` in a transaction under the parent's try-lock and `lock_timeout`: `undefined` when
   * another instance holds the lock or the table stayed busy; `false` when `work` rolled back.
   */
  private async locked<T>(
    db: PartitionDb,
    work: (sql: SqlExecutor) => Promise<T>,
  ): Promise<T | false | undefined> {
    try {
      return await db.transaction(async (sql) => {
        await sql.query(`SET LOCAL lock_timeout = ${Math.trunc(this.lockTimeoutMs)}`, []);
        const [lock] = await sql.query<{ ok: boolean }>(LOCK(this.parent), []);
        return lock?.ok ? await work(sql) : undefined;
      });
    } catch (error) {
      if (error instanceof Rollback) return false;
      if ((error as { code?: string }).code === '55P03') return undefined;
      throw error;
    }
  }

  private quoted(name: string): string {
    return qualifiedTable(this.spec.module, this.spec.schema, name);
  }

  private with(): string {
    return this.spec.storage ? ` WITH (${this.spec.storage})` : '';
  }
}
