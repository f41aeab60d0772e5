import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Pool } from 'pg';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_OPTIONS, RELAY_PG_POOL } from '../relay.constants';
import { relaySql, type RelaySql } from '../store/relay.sql';

/**
 * Deletes (or archives) published rows older than the retention, in small batches, each its
 * own short transaction guarded by a transaction-scoped try-lock so that one instance at a
 * time does it. Never one big transaction (WAL spikes, long locks, autovacuum debt).
 * @publicApi
 */
@Injectable()
export class HousekeepingService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('RelayHousekeeping');
  private readonly sql: RelaySql;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;

  constructor(
    @Inject(RELAY_OPTIONS) private readonly options: ResolvedRelayOptions,
    @Inject(RELAY_PG_POOL) private readonly pool: Pool,
  ) {
    this.sql = relaySql(options);
  }

  onApplicationBootstrap(): void {
    if (!this.options.retention || !this.options.autoStart) return;
    this.schedule(this.options.retention.intervalMs);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce().catch((error: unknown) => {
        this.logger.error(`housekeeping failed (${String(error)}); next run in ${ms} ms`);
        return 0;
      });
      void this.running.then(() => this.schedule(ms));
    }, ms);
    this.timer.unref();
  }

  /**
   * One pass: batches until fewer rows than the batch size are left, or another instance
   * holds the lock. Returns the number of rows removed.
   */
  async runOnce(maxBatches = 1000): Promise<number> {
    const retention = this.options.retention;
    if (!retention) return 0;
    const statement =
      retention.mode === 'archive' ? this.sql.archivePublished : this.sql.deletePublished;
    let total = 0;
    for (let i = 0; i < maxBatches && !this.stopped; i++) {
      const removed = await this.batch(statement, retention.publishedMs, retention.batchSize);
      if (removed === undefined) break;
      total += removed;
      if (removed < retention.batchSize) break;
    }
    if (total > 0)
      this.logger.log(`housekeeping removed ${total} published row(s) (${retention.mode})`);
    return total;
  }

  /** One short transaction; `undefined` when another instance is at it. */
  private async batch(
    statement: string,
    olderThanMs: number,
    size: number,
  ): Promise<number | undefined> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const lock = await client.query<{ ok: boolean }>(this.sql.housekeepingLock);
      if (!lock.rows[0]?.ok) {
        await client.query('ROLLBACK');
        return undefined;
      }
      const result = await client.query(statement, [olderThanMs, size]);
      await client.query('COMMIT');
      return result.rowCount ?? 0;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
