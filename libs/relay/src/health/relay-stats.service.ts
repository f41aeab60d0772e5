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
} from '@nest-outbox/core/internal';
import type { Pool } from 'pg';
import type { RelayMetrics } from '../metrics/relay.metrics';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_METRICS, RELAY_OPTIONS, RELAY_PG_POOL } from '../relay.constants';
import type { OutboxTableStats, RelayStats } from '../store/relay-stats';
import { RelayStore } from '../store/relay.store';

/** The stats statement runs at most 1/(1 + this) of the time (see `PeriodicTask`). */
const STATS_MIN_PAUSE_FACTOR = 9;

/** The pressure row stays fresh for this many of its writer's pauses: one late run is no gap. */
const FRESH_PAUSES = 2;

const FIGURES = ['pending', 'parked', 'suspects', 'oldestAgeMs', 'oldestUnparkedAgeMs'] as const;

/** Another relay's stats as its pressure row holds them; undefined when they are not whole. */
function sharedStats(value: unknown): RelayStats | undefined {
  const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const whole = FIGURES.every((k) => Number.isFinite(v[k]) && (v[k] as number) >= 0);
  return whole ? (v as unknown as RelayStats) : undefined;
}

/**
 * The owner of the backlog figures. Every `statsIntervalMs` it reads the pressure row: while
 * another relay's row is fresh, its figures stand in; otherwise this relay runs the stats
 * statement and publishes the figures and pressure state in the row. So N relays count about
 * once per interval between them, and producers only read the row. The figures feed the gauges
 * and the backlog trend; health checks and the console read the latest snapshot.
 * @publicApi
 */
@Injectable()
export class RelayStatsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('RelayStats');
  private readonly task: PeriodicTask<RelayStats>;
  private readonly tableTask: PeriodicTask<OutboxTableStats | undefined>;
  private readonly backlog: BacklogPressure;
  /** Events this relay published, by time, over the trend window (the drain rate, no query). */
  private readonly published: { atMs: number; count: number }[] = [];
  private readonly startedAtMs = Date.now();
  /** The relay whose statement gave the latest figures (this one or another). */
  sampledBy: string | undefined;

  constructor(
    @Inject(RELAY_OPTIONS) private readonly options: ResolvedRelayOptions,
    private readonly store: RelayStore,
    @Inject(RELAY_METRICS) private readonly metrics: RelayMetrics,
    @Inject(RELAY_PG_POOL) private readonly pool: Pool,
  ) {
    this.backlog = new BacklogPressure(options.pressure);
    metrics.backlogBudget.set(options.pressure.maxBacklog);
    metrics.ageBudgetSeconds.set(options.pressure.maxOldestAgeMs / 1000);
    this.task = new PeriodicTask({
      intervalMs: options.statsIntervalMs,
      // The statement walks the backlog: while it runs PostgreSQL cannot mark the published
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
    void this.tableTask.runNow().catch(() => undefined);
  }

  /**
   * Reads the figures now (or joins the reading in progress) and updates the gauges: always a
   * query on this relay's own pool (the pressure row at least), so health says when this relay
   * cannot reach the database even while the others can.
   */
  async refresh(): Promise<RelayStats> {
    return this.task.runNow();
  }

  /** Counts events this relay published (the drain rate). @internal */
  countPublished(count: number): void {
    if (count > 0) this.published.push({ atMs: Date.now(), count });
  }

  private async sample(): Promise<RelayStats> {
    this.observePool();
    const { relayId, statsIntervalMs } = this.options;
    const row = await this.store.readPressure();
    const shared = row?.fresh && row.sampled_by !== relayId && sharedStats(row.figures.stats);
    if (row && shared) {
      this.metrics.statsSamples.inc({ source: 'peer' });
      this.sampledBy = row.sampled_by;
      this.apply(shared);
      return shared;
    }
    const startedAt = Date.now();
    const stats = await this.store.stats();
    const pauseMs = Math.max(statsIntervalMs, (Date.now() - startedAt) * STATS_MIN_PAUSE_FACTOR);
    this.metrics.statsSamples.inc({ source: 'own' });
    this.sampledBy = relayId;
    this.apply(stats);
    const figures = { stats, pressure: pressureView(this.backlog.latest), pauseMs };
    await this.store.writePressure(relayId, FRESH_PAUSES * pauseMs, figures).catch((e: unknown) => {
      this.logger.warn(`pressure row not written (${errorLabel(e)}); producers read it as stale`);
    });
    return stats;
  }

  /** Figures of this relay's statement or another's: gauges and the backlog trend. */
  private apply(stats: RelayStats): void {
    this.metrics.observeStats(stats);
    const atMs = Date.now();
    const { windowMs } = this.options.pressure;
    while (this.published.length > 0 && this.published[0]!.atMs < atMs - windowMs)
      this.published.shift();
    // The window is shorter at start-up.
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
    const table = await this.store.tableStats();
    if (table) {
      this.metrics.tableSizeBytes.set(table.sizeBytes);
      this.metrics.deadTuples.set(table.deadTuples);
      this.metrics.liveTuples.set(table.liveTuples);
      this.metrics.sinceAutovacuum.set(table.secondsSinceVacuum);
    }
    return table;
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
