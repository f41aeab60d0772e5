import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { errorLabel, inTransaction, PeriodicTask } from '@nest-outbox/core/internal';
import type { Pool } from 'pg';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_OPTIONS, RELAY_PG_POOL } from '../relay.constants';
import { housekeepingSql } from './housekeeping.sql';

/** One pass in this many starts from the oldest end of the published index (see `runOnce`). */
export const FULL_PASS_EVERY = 10;

/** Deletes (or archives) published rows past the retention in small batches, one instance at a time. @publicApi */
@Injectable()
export class HousekeepingService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('RelayHousekeeping');
  private readonly sql: ReturnType<typeof housekeepingSql>;
  private readonly task: PeriodicTask<number> | undefined;
  private stopped = false;
  /** Where the last pass ended (`published_at` as text), and passes since a full one. */
  private resume: { from: string | null; passes: number } = { from: null, passes: 0 };

  constructor(
    @Inject(RELAY_OPTIONS) private readonly options: ResolvedRelayOptions,
    @Inject(RELAY_PG_POOL) private readonly pool: Pool,
  ) {
    this.sql = housekeepingSql(options);
    const retention = options.retention;
    this.task = retention
      ? new PeriodicTask({
          intervalMs: retention.intervalMs,
          run: () => this.runOnce(),
          onError: (error) =>
            this.logger.error(
              `housekeeping failed (${errorLabel(error)}); next run in ${retention.intervalMs} ms`,
            ),
        })
      : undefined;
  }

  onApplicationBootstrap(): void {
    if (this.options.autoStart) this.task?.start();
  }

  /**
   * One pass; returns the rows removed. Each batch starts where the last one ended (the removed
   * rows' index entries stay until vacuum, and are not walked again); every `FULL_PASS_EVERY`th
   * pass starts from the oldest end, for a row skipped while locked or marked late.
   */
  async runOnce(maxBatches = 1000): Promise<number> {
    const retention = this.options.retention;
    if (!retention) return 0;
    const statement = retention.mode === 'archive' ? this.sql.archive : this.sql.delete;
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
    await this.task?.stop();
  }
}
