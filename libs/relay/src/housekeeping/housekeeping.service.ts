import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import {
  errorLabel,
  inTransaction,
  PartitionMaintainer,
  PeriodicTask,
  qualifiedTable,
  sqlExecutorOf,
  type PartitionDb,
  type PartitionPass,
} from '@nest-outbox/core/internal';
import type { Pool } from 'pg';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_MODULE, RELAY_OPTIONS, RELAY_PG_POOL } from '../relay.constants';
import { relayObjectNames } from '../schema/relay-schema.sql';
import { housekeepingSql } from './housekeeping.sql';
import { outboxPartitionRetention } from './outbox-partitions';

/** One pass in this many starts from the oldest end of the published index (see `runOnce`). */
export const FULL_PASS_EVERY = 10;

/** How often a partitioned outbox is maintained when `retention` is `false`. */
const PARTITION_INTERVAL_MS = 60_000;

/**
 * Deletes (or archives) published rows older than the retention, in small batches, each its
 * own short transaction under a try-lock (one instance at a time) and `statementTimeoutMs`,
 * never one big transaction. On a partitioned outbox (`nest-outbox migrate --partition`) it
 * creates partitions ahead, drops (archive mode: detaches) settled old ones instead, analyzes
 * the parent, and deletes in batches only in the default partition.
 * @publicApi
 */
@Injectable()
export class HousekeepingService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('RelayHousekeeping');
  private readonly sql: ReturnType<typeof housekeepingSql>;
  private readonly defaultSql: ReturnType<typeof housekeepingSql>;
  private readonly partitions: PartitionMaintainer;
  private readonly task: PeriodicTask<number>;
  private stopped = false;
  /** Where the last pass ended (`published_at` as text), and passes since a full one. */
  private resume: { from: string | null; passes: number } = { from: null, passes: 0 };

  constructor(
    @Inject(RELAY_OPTIONS) private readonly options: ResolvedRelayOptions,
    @Inject(RELAY_PG_POOL) private readonly pool: Pool,
  ) {
    this.sql = housekeepingSql(options);
    const fallback = qualifiedTable(RELAY_MODULE, options.schema, `${options.table}_default`);
    this.defaultSql = housekeepingSql(options, fallback);
    this.partitions = new PartitionMaintainer({
      module: RELAY_MODULE,
      schema: options.schema,
      table: options.table,
      storage: 'fillfactor = 80',
    });
    const intervalMs = options.retention?.intervalMs ?? PARTITION_INTERVAL_MS;
    this.task = new PeriodicTask({
      intervalMs,
      run: () => this.runOnce(),
      onError: (error) =>
        this.logger.error(
          `housekeeping failed (${errorLabel(error)}); next run in ${intervalMs} ms`,
        ),
    });
  }

  onApplicationBootstrap(): void {
    if (this.options.autoStart) this.task.start();
  }

  /**
   * One pass; returns the rows removed. Each batch starts where the last one ended (the removed
   * rows' index entries stay until vacuum, and are not walked again); every `FULL_PASS_EVERY`th
   * pass starts from the oldest end, for a row skipped while locked or marked late.
   */
  async runOnce(maxBatches = 1000): Promise<number> {
    const partitioned = (await this.maintainPartitions()) !== undefined;
    const retention = this.options.retention;
    if (!retention) return 0;
    const sql = partitioned ? this.defaultSql : this.sql;
    const statement = retention.mode === 'archive' ? sql.archive : sql.delete;
    const full = this.resume.passes % FULL_PASS_EVERY === 0;
    let total = 0;
    let from = full ? null : this.resume.from;
    for (let i = 0; i < maxBatches && !this.stopped; i++) {
      const batch = await this.batch(statement, [retention.keepMs, retention.batchSize, from]);
      if (batch === undefined) break;
      total += batch.removed;
      from = batch.last ?? from;
      if (batch.removed < retention.batchSize) break;
    }
    this.resume = { from, passes: this.resume.passes + 1 };
    if (total > 0)
      this.logger.log(`housekeeping removed ${total} published row(s) (${retention.mode})`);
    return total;
  }

  /**
   * The partitions' part of a pass: `undefined` when the outbox is not partitioned (one
   * catalog read).
   */
  async maintainPartitions(): Promise<PartitionPass | undefined> {
    const db: PartitionDb = {
      sql: sqlExecutorOf(this.pool),
      transaction: (work) => inTransaction(this.pool, (client) => work(sqlExecutorOf(client))),
    };
    const pass = await this.partitions.maintain(
      db,
      outboxPartitionRetention(relayObjectNames(this.options).archive, this.options.retention),
    );
    if (pass) this.logPass(pass);
    return pass;
  }

  private logPass(pass: PartitionPass): void {
    const done = { created: pass.created, dropped: pass.dropped, detached: pass.detached };
    for (const [what, names] of Object.entries(done))
      if (names.length > 0) this.logger.log(`partitions ${what}: ${names.join(', ')}`);
    if (pass.held.length > 0)
      this.logger.log(
        `partitions kept past the retention (a row to publish, parked, or published lately): ${pass.held.join(', ')}`,
      );
    if (pass.overlapping.length > 0)
      this.logger.warn(
        `partitions not created, the default partition holds rows of their range: ${pass.overlapping.join(', ')}`,
      );
  }

  /** `undefined` when another instance is at it. */
  private batch(
    statement: string,
    values: [olderThanMs: number, size: number, from: string | null],
  ): Promise<{ removed: number; last: string | null } | undefined> {
    const begin = `BEGIN; SET LOCAL statement_timeout = ${Math.trunc(this.options.statementTimeoutMs)}`;
    return inTransaction(
      this.pool,
      async (client) => {
        const lock = await client.query<{ ok: boolean }>(this.sql.lock);
        if (!lock.rows[0]?.ok) return undefined;
        const { rows } = await client.query<{ removed: number; last: string | null }>(
          statement,
          values,
        );
        return rows[0];
      },
      begin,
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.task.stop();
  }
}
