import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import {
  BacklogPressure,
  errorLabel,
  PeriodicTask,
  pressureView,
  type BacklogAssessment,
  type PressureRow,
  type PressureView,
} from '@nest-outbox/core/internal';
import type { Pool } from 'pg';
import { RelayClaimer } from '../claim/relay.claimer';
import type { RelayMetrics } from '../metrics/relay.metrics';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_METRICS, RELAY_OPTIONS, RELAY_PG_POOL } from '../relay.constants';
import type { OldestTransaction, OutboxTableStats, RelayStats } from '../store/relay-stats';
import { RelayStore } from '../store/relay.store';
import {
  seconds,
  sharedStats,
  STALE_AFTER_INTERVALS,
  type RelayFiguresView,
  type Taken,
} from './relay-figures';

/** The stats statement runs at most 1/(1 + this) of the time (see `PeriodicTask`). */
const STATS_MIN_PAUSE_FACTOR = 9;

/**
 * The owner of the backlog figures. Every `statsIntervalMs` it reads the pressure row: while
 * another relay's row is fresh its figures stand in, else this relay runs the stats statement
 * and publishes the figures in the row (N relays count about once per interval between them).
 * Readers never wait on a statement; figures older than `STALE_AFTER_INTERVALS` intervals read
 * as unknown.
 * @publicApi
 */
@Injectable()
export class RelayStatsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('RelayStats');
  private readonly task: PeriodicTask<RelayStats>;
  private readonly tableTask: PeriodicTask<OutboxTableStats | undefined>;
  private readonly backlog: BacklogPressure;
  /** Events this relay published over the trend window (the drain rate). */
  private readonly published: { atMs: number; count: number }[] = [];
  private readonly startedAtMs = Date.now();
  private last: (Taken<RelayStats> & { readonly by: string }) | undefined;
  private oldest: Taken<OldestTransaction | undefined> | undefined;
  private unreachable: string | undefined;

  constructor(
    @Inject(RELAY_OPTIONS) private readonly options: ResolvedRelayOptions,
    private readonly store: RelayStore,
    private readonly claimer: RelayClaimer,
    @Inject(RELAY_METRICS) private readonly metrics: RelayMetrics,
    @Inject(RELAY_PG_POOL) private readonly pool: Pool,
  ) {
    this.backlog = new BacklogPressure(options.pressure);
    metrics.backlogBudget.set(options.pressure.maxBacklog);
    metrics.ageBudgetSeconds.set(options.pressure.maxOldestAgeMs / 1000);
    metrics.onScrape(() => this.observeAges());
    this.task = new PeriodicTask({
      intervalMs: options.statsIntervalMs,
      // The statement reads the backlog: while it runs PostgreSQL cannot mark the published
      // rows' index entries dead, which slows every claim. So it runs a small share of the time.
      minPauseFactor: STATS_MIN_PAUSE_FACTOR,
      run: () => this.sample(),
      onError: (error) => this.logger.warn(`stats query failed (${errorLabel(error)})`),
    });
    this.tableTask = new PeriodicTask({
      intervalMs: options.tableStatsIntervalMs,
      run: () => this.queryTable(),
      onError: (error) => this.logger.warn(`table stats query failed (${errorLabel(error)})`),
    });
  }

  onApplicationBootstrap(): void {
    this.task.start();
    this.tableTask.start();
    void this.store.schemaSettled.then(() => this.task.runNow()).catch(() => undefined);
    void this.tableTask.runNow().catch(() => undefined);
  }

  get staleAfterMs(): number {
    return STALE_AFTER_INTERVALS * this.options.statsIntervalMs;
  }

  /** Samples the figures now (or joins the sampling in progress); readers use `figures()`. */
  async refresh(): Promise<RelayStats> {
    return this.task.runNow();
  }

  /** The latest backlog figures with their age; never waits on a statement. */
  figures(): RelayFiguresView {
    if (!this.last) return { stats: null, ageSeconds: null, stale: true, sampledBy: null };
    const ageMs = Date.now() - this.last.atMs;
    const stale = ageMs > this.staleAfterMs;
    const stats = stale ? null : this.last.value;
    return { stats, ageSeconds: seconds(ageMs), stale, sampledBy: this.last.by };
  }

  /** The pressure state of the latest figures: `unknown` while they are stale. */
  pressureNow(): PressureView {
    const { stale, ageSeconds } = this.figures();
    if (!stale || !this.backlog.latest) return pressureView(this.backlog.latest);
    const reasons = [`stale: the figures are ${ageSeconds} s old`];
    return { state: 'unknown', reasons, sampledAt: this.backlog.latest.sampledAt };
  }

  /** The oldest transaction holding the xmin horizon (null: none) and the figure's age. */
  oldestTransaction(): { value: OldestTransaction | null; ageSeconds: number } | null {
    if (!this.oldest) return null;
    return { value: this.oldest.value ?? null, ageSeconds: seconds(Date.now() - this.oldest.atMs) };
  }

  /** Why this relay's pool could not read the database at its last try; undefined: it could. */
  get databaseError(): string | undefined {
    return this.unreachable;
  }

  /** Counts events this relay published (the drain rate). @internal */
  countPublished(count: number): void {
    if (count > 0) this.published.push({ atMs: Date.now(), count });
  }

  private async sample(): Promise<RelayStats> {
    this.observePool();
    const { relayId } = this.options;
    const row = await this.store.readPressure().then(
      (r) => ((this.unreachable = undefined), r),
      (error: unknown) => {
        this.unreachable = errorLabel(error);
        throw error;
      },
    );
    const ageMs = row ? Math.max(0, row.age_seconds * 1000) : Infinity;
    // A row is trusted only while fresh by its writer's rule and by this relay's own interval.
    const fresh = row?.fresh && row.sampled_by !== relayId && ageMs <= this.staleAfterMs;
    const shared = fresh && sharedStats(row.figures.stats);
    if (row && shared) {
      this.metrics.statsSamples.inc({ source: 'peer' });
      this.apply(shared, row.sampled_by, Date.now() - ageMs);
      return shared;
    }
    // A peer pausing after a slow statement: its figures may be stale by now, but one more
    // statement is what that pause spares the database; it is bounded by the timeout.
    if (this.last && row && row.sampled_by !== relayId && ageMs < this.peerPauseMs(row))
      return this.last.value;
    const startedAt = Date.now();
    const stats = await this.store.stats(this.claimer.floor);
    this.metrics.statsSamples.inc({ source: 'own' });
    this.apply(stats, relayId, startedAt);
    const pauseMs = Math.max(
      this.options.statsIntervalMs,
      (Date.now() - startedAt) * STATS_MIN_PAUSE_FACTOR,
    );
    const figures = { stats, pressure: pressureView(this.backlog.latest), pauseMs };
    await this.store
      .writePressure(relayId, this.staleAfterMs, figures, Date.now() - startedAt)
      .catch((e: unknown) => {
        this.logger.warn(`pressure row not written (${errorLabel(e)}); producers read it as stale`);
      });
    return stats;
  }

  private peerPauseMs(row: PressureRow): number {
    const { pauseMs } = row.figures as { pauseMs?: unknown };
    const { statsIntervalMs, statementTimeoutMs } = this.options;
    const longest = statsIntervalMs + STATS_MIN_PAUSE_FACTOR * statementTimeoutMs;
    return typeof pauseMs === 'number' ? Math.min(pauseMs, longest) : 0;
  }

  private apply(stats: RelayStats, by: string, atMs: number): void {
    this.last = { value: stats, atMs, by };
    this.metrics.observeStats(stats);
    const { windowMs } = this.options.pressure;
    while (this.published.length > 0 && this.published[0]!.atMs < atMs - windowMs)
      this.published.shift();
    const drainWindowMs = Math.min(windowMs, Math.max(1, atMs - this.startedAtMs));
    const drained = this.published.reduce((sum, c) => sum + c.count, 0);
    const reading = this.backlog.observe({
      atMs,
      backlog: stats.pending,
      oldestAgeMs: stats.oldestUnparkedAgeMs,
      drained,
      drainWindowMs,
    });
    this.metrics.observePressure(reading, reading.rates.drainPerSecond);
  }

  private async queryTable(): Promise<OutboxTableStats | undefined> {
    const atMs = Date.now();
    const { table, oldest } = await this.store.tableStats();
    this.oldest = { value: oldest, atMs };
    this.metrics.oldestXactAge.set(oldest?.ageSeconds ?? 0);
    if (table) {
      this.metrics.tableSizeBytes.set(table.sizeBytes);
      this.metrics.deadTuples.set(table.deadTuples);
      this.metrics.liveTuples.set(table.liveTuples);
      this.metrics.sinceAutovacuum.set(table.secondsSinceVacuum);
    }
    return table;
  }

  /** At each scrape: the figures' age, and NaN for the figures that went stale. */
  private observeAges(): void {
    const { stale, ageSeconds } = this.figures();
    this.metrics.figuresAge.set(ageSeconds ?? Number.POSITIVE_INFINITY);
    if (stale) this.metrics.observeStale();
    const oldestAgeMs = this.oldest ? Date.now() - this.oldest.atMs : Infinity;
    if (oldestAgeMs > STALE_AFTER_INTERVALS * this.options.tableStatsIntervalMs)
      this.metrics.oldestXactAge.set(Number.NaN);
  }

  private observePool(): void {
    const { totalCount, idleCount, waitingCount } = this.pool;
    this.metrics.poolConnections.set({ state: 'held' }, totalCount - idleCount);
    this.metrics.poolConnections.set({ state: 'idle' }, idleCount);
    this.metrics.poolWaiting.set(waitingCount);
  }

  /** The last backlog assessment (pressure state, forecast, rates), if any. */
  get pressure(): BacklogAssessment | undefined {
    return this.backlog.latest;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([this.task.stop(), this.tableTask.stop()]);
  }
}
