import { Logger } from '@nestjs/common';
import {
  createModuleMetrics,
  PRESSURE_LEVEL_VALUE,
  type BacklogAssessment,
  type MetricFactory,
  type PromClient,
} from '@nest-outbox/core/internal';
import type { Registry } from 'prom-client';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_MODULE } from '../relay.constants';
import type { RelayStats } from '../store/relay-stats';

/** Buckets of the relay's statement and request durations, in seconds. */
const SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** The relay's metrics made by `make`, and where they live (`registry`: none for no-ops). */
function relayMetrics(make: MetricFactory, registry: Registry | undefined) {
  let beforeScrape = (): void => undefined;
  const m = {
    registry,
    // First: its scrape hook marks stale figures before the gauges below are read.
    figuresAge: make.gauge(
      'figures_age_seconds',
      'Age of the backlog figures (+Inf before the first); stale past two statsIntervalMs, when their gauges read NaN',
      [],
      () => beforeScrape(),
    ),
    oldestXactAge: make.gauge(
      'oldest_xact_age_seconds',
      'Age of the oldest transaction holding the database xmin horizon (0: none; NaN: unknown)',
    ),
    published: make.counter('published_total', 'Events published and marked'),
    retried: make.counter('retried_total', 'Failed publishes scheduled for retry', ['kind']),
    parked: make.counter('parked_total', 'Events parked', ['kind']),
    leaseLost: make.counter(
      'lease_lost_total',
      'Published events whose mark was refused because the lease was lost',
    ),
    released: make.counter('released_total', 'Claimed events handed back unpublished'),
    pending: make.gauge('pending_events', 'Unpublished, unparked events'),
    parkedEvents: make.gauge('parked_events', 'Parked events'),
    oldestAge: make.gauge('oldest_pending_age_seconds', 'Age of the oldest unpublished event'),
    running: make.gauge('loop_running', '1 while the relay loop runs'),
    brokerUp: make.gauge('broker_up', '1 when the last broker probe or publish succeeded'),
    walActive: make.gauge(
      'wal_active',
      'WAL mode: 1 while this relay reads the slot, 0 standing by',
    ),
    walLagBytes: make.gauge(
      'wal_slot_lag_bytes',
      "WAL mode: WAL written since the slot's confirmed position",
    ),
    walLagSeconds: make.gauge(
      'wal_slot_lag_seconds',
      'WAL mode: age of the oldest commit read and not yet confirmed (0: none; NaN: standing by)',
    ),
    claimSeconds: make.histogram('claim_duration_seconds', 'Claim transaction duration', SECONDS),
    publishSeconds: make.histogram('publish_duration_seconds', 'Kafka request duration', [
      ...SECONDS,
      5,
    ]),
    delaySeconds: make.histogram(
      'created_to_published_seconds',
      'Time from recording to broker ack',
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30, 300],
    ),
    backlogChange: make.gauge(
      'backlog_change_per_second',
      'Rate of change of pending_events over the trend window',
    ),
    drainRate: make.gauge(
      'drain_rate_per_second',
      'Events this relay published per second over the trend window',
    ),
    fillRate: make.gauge(
      'fill_rate_per_second',
      'Events recorded per second: this relay drain rate plus the backlog change',
    ),
    forecastSeconds: make.gauge(
      'backlog_forecast_seconds',
      'Forecast time until the backlog budget is reached (+Inf while draining)',
    ),
    backlogBudget: make.gauge('backlog_budget_events', 'Configured backlog budget'),
    ageBudgetSeconds: make.gauge(
      'oldest_age_budget_seconds',
      'Configured age budget of the oldest unpublished event',
    ),
    pressureLevel: make.gauge('pressure_level', 'Back-pressure state: 0 ok, 1 warn, 2 critical'),
    attempts: make.histogram(
      'publish_attempts',
      'Attempts a published event took',
      [1, 2, 3, 4, 5, 7, 10, 15, 20],
    ),
    failures: make.counter('publish_failures_total', 'Failed publishes by classified reason', [
      'kind',
      'reason',
    ]),
    publishedAgain: make.counter(
      'published_again_total',
      'Events published more than once, by cause',
      ['cause'],
    ),
    markSeconds: make.histogram('mark_duration_seconds', 'Mark statement duration', SECONDS),
    poolConnections: make.gauge('pool_connections', 'Connections of the relay pool', ['state']),
    poolWaiting: make.gauge('pool_waiting_clients', 'Requests waiting for a pool connection'),
    tableSizeBytes: make.gauge('table_size_bytes', 'Outbox table size with indexes and TOAST'),
    deadTuples: make.gauge('table_dead_tuples', 'Dead tuples of the outbox table'),
    liveTuples: make.gauge('table_live_tuples', 'Live tuples of the outbox table'),
    sinceAutovacuum: make.gauge(
      'seconds_since_last_autovacuum',
      'Time since the outbox table was last vacuumed (+Inf: never)',
    ),
    crashLoopSuspects: make.gauge(
      'crash_loop_suspects',
      'Unpublished events an earlier publish of which started and never finished',
    ),
    statsSamples: make.counter(
      'stats_samples_total',
      "Backlog figures taken: from this relay's stats statement or another relay's pressure row",
      ['source'],
    ),
    pendingMarks: make.gauge(
      'pending_marks',
      'Acknowledged events whose mark waits for the database to answer again',
    ),
    marksRecovered: make.counter(
      'marks_recovered_total',
      'Acknowledged events marked once the database answered again after their mark failed',
    ),
  };
  m.publishedAgain.inc({ cause: 'mark_dropped' }, 0);
  for (const source of ['own', 'peer']) m.statsSamples.inc({ source }, 0);
  for (const cause of ['lease_lost', 'kill_after_ack', 'replay'])
    m.publishedAgain.inc({ cause }, 0);
  return {
    ...m,
    onScrape(hook: () => void): void {
      beforeScrape = hook;
    },
    /** Marks the backlog and pressure gauges unknown (NaN): their figures are stale. */
    observeStale(): void {
      const { pending, parkedEvents, oldestAge, crashLoopSuspects } = m;
      const { backlogChange, fillRate, forecastSeconds, pressureLevel } = m;
      for (const g of [pending, parkedEvents, oldestAge, crashLoopSuspects, backlogChange])
        g.set(Number.NaN);
      for (const g of [fillRate, forecastSeconds, pressureLevel]) g.set(Number.NaN);
    },
    observeStats(stats: RelayStats): void {
      m.pending.set(stats.pending);
      m.parkedEvents.set(stats.parked);
      m.oldestAge.set(stats.oldestAgeMs / 1000);
      m.crashLoopSuspects.set(stats.suspects);
    },
    observePressure(reading: BacklogAssessment, drainPerSecond: number): void {
      m.backlogChange.set(reading.rates.backlogPerSecond);
      m.drainRate.set(drainPerSecond);
      m.fillRate.set(reading.rates.fillPerSecond);
      m.forecastSeconds.set(reading.forecastSeconds);
      m.pressureLevel.set(PRESSURE_LEVEL_VALUE[reading.state]);
    },
  };
}

/** The relay's metrics (`RELAY_METRICS`), never in the global registry; labels are bounded. @internal */
export type RelayMetrics = ReturnType<typeof relayMetrics>;

/** prom-client is loaded here, from this package (its peer), on use. @internal */
export function createRelayMetrics(options: Pick<ResolvedRelayOptions, 'metrics'>): RelayMetrics {
  const logger = new Logger('RelayMetrics');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional peer, loaded on use
  const load = () => require('prom-client') as PromClient;
  const warn = (message: string) => logger.warn(message);
  const { make, registry } = createModuleMetrics(RELAY_MODULE, options.metrics, load, warn);
  return relayMetrics(make, registry);
}
