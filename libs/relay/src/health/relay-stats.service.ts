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
  type BacklogAssessment,
} from '@nest-outbox/core/internal';
import type { Pool } from 'pg';
import { RelayMetrics } from '../metrics/relay.metrics';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_OPTIONS, RELAY_PG_POOL } from '../relay.constants';
import type { OutboxTableStats, RelayStats } from '../store/relay-stats';
import { RelayStore } from '../store/relay.store';
import { PublishedRate } from './published-rate';
import { decodeStatsNotice, encodeStatsNotice } from './stats-notice';

/** The stats statement runs at most 1/(1 + this) of the time (see `PeriodicTask`). */
const STATS_MIN_PAUSE_FACTOR = 9;

/**
 * A relay that adopted another's figures holds its own statement off for its pause times a
 * factor drawn from this range: the relay whose timer comes first keeps sampling for all (its
 * own pause is 1x), and relays that adopted the same notice do not all run at once if it stops.
 */
const ADOPTED_HOLD_FACTOR = { min: 1.2, max: 1.8 } as const;

/** The longest an adopted notice holds the statement off, whatever its duration says. */
const MAX_ADOPTED_HOLD_MS = 10 * 60_000;

/**
 * The relay's one sampler: every `statsIntervalMs` (longer when its statement is slow: at
 * least nine times the statement's own duration) it reads pending count, oldest age, parked
 * count and crash-loop suspects into the gauges, feeds the backlog trend (rate of change,
 * drain, forecast, pressure state) and reads the pool's connections; every
 * `tableStatsIntervalMs` it reads the outbox table's size and vacuum figures. Health checks
 * and the console read the latest snapshot (no query per request beyond `refresh()`, which
 * answers with the last figures while a slow statement's pause lasts).
 * @publicApi
 */
@Injectable()
export class RelayStatsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('RelayStats');
  private readonly task: PeriodicTask<RelayStats>;
  private readonly tableTask: PeriodicTask<OutboxTableStats | undefined>;
  private readonly backlog: BacklogPressure;
  private readonly drain: PublishedRate;
  private last: RelayStats | undefined;
  /** `schema.table`: the stats notices this relay sends and takes. */
  private readonly outbox: string;
  /** Whose statement gave the latest figures (this relay's or another's), and when. */
  private source: { readonly relayId: string; readonly atMs: number } | undefined;

  constructor(
    @Inject(RELAY_OPTIONS) private readonly options: ResolvedRelayOptions,
    private readonly store: RelayStore,
    private readonly metrics: RelayMetrics,
    @Inject(RELAY_PG_POOL) private readonly pool: Pool,
  ) {
    this.outbox = `${options.schema}.${options.table}`;
    this.backlog = new BacklogPressure(options.pressure);
    this.drain = new PublishedRate(options.pressure.windowMs);
    metrics.backlogBudget.set(options.pressure.maxBacklog);
    metrics.ageBudgetSeconds.set(options.pressure.maxOldestAgeMs / 1000);
    this.task = new PeriodicTask({
      intervalMs: options.statsIntervalMs,
      // Its statement counts the backlog and walks to the oldest pending row: on a large or
      // bloated table it gets slow, and while it runs PostgreSQL cannot mark the published
      // rows' index entries dead, which slows every claim (docs/BENCHMARKS.md has the drain
      // that showed it). So it runs at most a small share of the time.
      minPauseFactor: STATS_MIN_PAUSE_FACTOR,
      run: () => this.query(),
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
   * Queries the figures now (or joins the query in progress) and updates the gauges; while
   * another relay's figures stand in for the statement, answers with them after a `SELECT 1`
   * on this relay's own pool (so that health still says when this relay cannot reach the
   * database).
   */
  async refresh(): Promise<RelayStats> {
    const stats = await this.task.runNow();
    if (this.source?.relayId !== this.options.relayId) await this.store.ping();
    return stats;
  }

  /** The relay whose statement gave the latest figures, and when they came (epoch ms). */
  get sampledBy(): { readonly relayId: string; readonly atMs: number } | undefined {
    return this.source;
  }

  /** Counts events this relay published (the drain rate). @internal */
  countPublished(count: number): void {
    this.drain.add(count);
  }

  /**
   * Takes the figures another relay of this outbox shared (a NOTIFY payload heard on the LISTEN
   * connection) in place of running the statement: they feed the gauges and the backlog trend
   * as its own would, and its own statement is held off for a pause and a bit (see
   * `ADOPTED_HOLD_FACTOR`). Anything else, and this relay's own notices, are ignored.
   * @internal
   */
  receive(payload: string): void {
    const notice = decodeStatsNotice(this.outbox, payload);
    if (!notice || notice.relayId === this.options.relayId) return;
    const pauseMs = Math.max(
      this.options.statsIntervalMs,
      notice.durationMs * STATS_MIN_PAUSE_FACTOR,
    );
    const { min, max } = ADOPTED_HOLD_FACTOR;
    const holdMs = Math.min(MAX_ADOPTED_HOLD_MS, pauseMs * (min + Math.random() * (max - min)));
    this.task.adopt(notice.stats, holdMs);
    this.observePool();
    this.metrics.statsSamples.inc({ source: 'peer' });
    this.source = { relayId: notice.relayId, atMs: Date.now() };
    this.apply(notice.stats);
  }

  private async query(): Promise<RelayStats> {
    this.observePool();
    const startedAt = Date.now();
    const stats = await this.store.stats();
    const durationMs = Date.now() - startedAt;
    this.metrics.statsSamples.inc({ source: 'own' });
    this.source = { relayId: this.options.relayId, atMs: Date.now() };
    this.apply(stats);
    const { listenChannel, relayId } = this.options;
    const notice = encodeStatsNotice(this.outbox, { relayId, durationMs, stats });
    if (listenChannel && notice) {
      // A hint for the other relays: if it is lost, each samples on its own as before.
      await this.store.notify(listenChannel, notice).catch((error: unknown) => {
        this.logger.warn(`stats notice not sent (${errorLabel(error)})`);
      });
    }
    return stats;
  }

  /** Figures of this relay's statement or another's: gauges and the backlog trend. */
  private apply(stats: RelayStats): void {
    this.last = stats;
    this.metrics.observeStats(stats);
    const atMs = Date.now();
    const drained = this.drain.drainedSince(atMs);
    const reading = this.backlog.observe({
      atMs,
      backlog: stats.pending,
      oldestAgeMs: stats.oldestUnparkedAgeMs,
      ...drained,
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

  /** The last snapshot, if any. */
  get latest(): RelayStats | undefined {
    return this.last;
  }

  /** The last backlog assessment (pressure state, forecast, rates), if any. */
  get pressure(): BacklogAssessment | undefined {
    return this.backlog.latest;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([this.task.stop(), this.tableTask.stop()]);
  }
}
