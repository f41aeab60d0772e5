import { Inject, Injectable, Logger } from '@nestjs/common';
import { logLine, PeriodicTask } from '@nest-outbox/core/internal';
import type { Pool } from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RelayMetrics } from '../metrics/relay.metrics';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import type { RelayPublisher } from '../publisher/relay-publisher.interface';
import { RELAY_METRICS, RELAY_OPTIONS, RELAY_PG_POOL, RELAY_PUBLISHER } from '../relay.constants';
import { WalAside } from './wal-aside';
import { WalDispatcher } from './wal-dispatcher';
import { checkWalReadiness, ensureSlot } from './wal-preflight';
import { walSql, type WalSql } from './wal-schema.sql';
import { WalSession } from './wal-session';

/** What health and metrics show of WAL mode. @publicApi */
export interface WalRelayState {
  /** `active`: this relay reads the slot; `standby`: another one does (or none can yet). */
  readonly role: 'active' | 'standby';
  readonly slot: string;
  /** WAL written since the slot's confirmed position (null before the first sample). */
  readonly lagBytes: number | null;
  /** Age of the oldest commit read and not yet confirmed (null while standing by). */
  readonly lagSeconds: number | null;
}

/**
 * The relay of `mode: 'wal'`: reads committed outbox inserts from a logical replication slot
 * and publishes them in commit order; the slot's confirmed position moves only past events the
 * broker acknowledged or that were set aside. One relay reads the slot (PostgreSQL allows one
 * reader); the others stand by and try to take it over every `wal.acquireIntervalMs`.
 * @internal
 */
@Injectable()
export class WalRelay {
  private readonly logger = new Logger('WalRelay');
  private readonly sql: WalSql;
  private readonly aside: WalAside;
  private readonly dispatcher: WalDispatcher;
  private readonly lagTask: PeriodicTask;
  private session: WalSession | undefined;
  private loop: Promise<void> | undefined;
  private stopping = new AbortController();
  private lagBytes: number | null = null;
  private lock: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(RELAY_OPTIONS) private readonly options: ResolvedRelayOptions,
    @Inject(RELAY_PG_POOL) private readonly pool: Pool,
    @Inject(RELAY_PUBLISHER) publisher: RelayPublisher,
    @Inject(RELAY_METRICS) private readonly metrics: RelayMetrics,
  ) {
    this.sql = walSql(options, options.wal?.publication);
    this.aside = new WalAside(pool, this.sql, options.batchSize);
    this.dispatcher = new WalDispatcher(options, publisher, metrics, this.logger);
    this.lagTask = new PeriodicTask({
      intervalMs: options.statsIntervalMs,
      run: () => this.sampleLag(),
      onError: (error) => this.logger.warn(logLine('slot lag sampling failed', { error })),
    });
  }

  private get wal() {
    return this.options.wal!;
  }

  get isRunning(): boolean {
    return this.loop !== undefined;
  }

  get state(): WalRelayState {
    return {
      role: this.session ? 'active' : 'standby',
      slot: this.wal.slot,
      lagBytes: this.lagBytes,
      lagSeconds: this.session ? this.session.lagSeconds : null,
    };
  }

  /**
   * Checks the database (typed error saying how to fix it), then reads the slot or stands by.
   * @throws WalModeUnavailableError
   */
  async start(): Promise<void> {
    if (this.loop) return;
    await checkWalReadiness(
      this.pool,
      this.sql,
      this.wal,
      this.options,
      this.options.installSchema,
    );
    this.stopping = new AbortController();
    this.metrics.walActive.set(0);
    this.loop = this.acquire();
    this.lagTask.start();
    void this.sampleLag().catch(() => undefined);
  }

  /** Confirms what was read (within `shutdownTimeoutMs`), then lets the slot go. */
  async stop(): Promise<void> {
    if (!this.loop) return;
    this.stopping.abort();
    const session = this.session;
    session?.drain();
    const timer = setTimeout(() => void session?.end(), this.options.shutdownTimeoutMs);
    await this.loop;
    clearTimeout(timer);
    this.loop = undefined;
    await this.lagTask.stop();
    this.metrics.walActive.set(0);
  }

  /** Runs `work` alone (batches of the stream and rounds of released events). */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lock.then(work);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Reads the slot whenever it can, until stopped. */
  private async acquire(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      try {
        await this.read();
      } catch (error) {
        const busy = (error as { code?: string }).code === '55006';
        if (!busy) this.logger.warn(logLine('slot not readable', { stage: 'wal', error }));
      }
      await sleep(this.wal.acquireIntervalMs, undefined, { signal: this.stopping.signal }).catch(
        () => undefined,
      );
    }
  }

  private async read(): Promise<void> {
    const confirmed = await ensureSlot(this.pool, this.sql, this.wal.slot);
    await this.aside.load();
    const session = new WalSession(
      {
        options: this.options,
        wal: this.wal,
        pool: this.pool,
        sql: this.sql,
        aside: this.aside,
        dispatcher: this.dispatcher,
        logger: this.logger,
        exclusive: (work) => this.exclusive(work),
      },
      confirmed,
    );
    try {
      await session.start();
      if (this.stopping.signal.aborted) return;
      this.session = session;
      this.metrics.walActive.set(1);
      this.logger.log(`relay ${this.options.relayId} reads slot ${this.wal.slot}`);
      await session.run();
    } finally {
      if (this.session === session) {
        this.session = undefined;
        this.metrics.walActive.set(0);
        this.metrics.walLagSeconds.set(NaN);
        this.logger.log(`relay ${this.options.relayId} stopped reading slot ${this.wal.slot}`);
      }
      await session.end();
    }
  }

  private async sampleLag(): Promise<void> {
    const { rows } = await this.pool.query<{ bytes: number }>(this.sql.lag, [this.wal.slot]);
    this.lagBytes = rows[0]?.bytes ?? null;
    this.metrics.walLagBytes.set(this.lagBytes ?? NaN);
    this.metrics.walLagSeconds.set(this.session ? this.session.lagSeconds : NaN);
  }
}
