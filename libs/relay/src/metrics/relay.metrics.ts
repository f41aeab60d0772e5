import type { Registry } from 'prom-client';
import type { RelayStats } from '../store/relay-stats';
import {
  PRESSURE_LEVEL_VALUE,
  type BacklogAssessment,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type MetricFactory,
} from '@nest-outbox/core/internal';

/** Buckets of the relay's statement and request durations, in seconds. */
const SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/**
 * The relay's metrics, in the registry given by option (or one per module): never the
 * global registry, so two apps in one process do not collide. Labels are bounded (error
 * kinds only; no event or aggregate ids). With `metrics: false`, or without prom-client
 * installed, every metric is a no-op and `registry` is undefined.
 * @internal
 */
export class RelayMetrics {
  readonly published: CounterMetric;
  readonly retried: CounterMetric<'kind'>;
  readonly parked: CounterMetric<'kind'>;
  readonly leaseLost: CounterMetric;
  readonly released: CounterMetric;
  readonly pending: GaugeMetric;
  readonly parkedEvents: GaugeMetric;
  readonly oldestAge: GaugeMetric;
  readonly running: GaugeMetric;
  readonly brokerUp: GaugeMetric;
  readonly claimSeconds: HistogramMetric;
  readonly publishSeconds: HistogramMetric;
  readonly delaySeconds: HistogramMetric;
  readonly backlogChange: GaugeMetric;
  readonly drainRate: GaugeMetric;
  readonly fillRate: GaugeMetric;
  readonly forecastSeconds: GaugeMetric;
  readonly backlogBudget: GaugeMetric;
  readonly ageBudgetSeconds: GaugeMetric;
  readonly pressureLevel: GaugeMetric;
  readonly attempts: HistogramMetric;
  readonly failures: CounterMetric<'kind' | 'reason'>;
  readonly publishedAgain: CounterMetric<'cause'>;
  readonly markSeconds: HistogramMetric;
  readonly poolConnections: GaugeMetric<'state'>;
  readonly poolWaiting: GaugeMetric;
  readonly tableSizeBytes: GaugeMetric;
  readonly deadTuples: GaugeMetric;
  readonly liveTuples: GaugeMetric;
  readonly sinceAutovacuum: GaugeMetric;
  readonly crashLoopSuspects: GaugeMetric;
  readonly statsSamples: CounterMetric<'source'>;

  constructor(
    make: MetricFactory,
    /** Where the metrics live; undefined when they are no-ops. */
    readonly registry: Registry | undefined,
  ) {
    this.published = make.counter('published_total', 'Events published and marked');
    this.retried = make.counter('retried_total', 'Failed publishes scheduled for retry', ['kind']);
    this.parked = make.counter('parked_total', 'Events parked', ['kind']);
    this.leaseLost = make.counter(
      'lease_lost_total',
      'Published events whose mark was refused because the lease was lost',
    );
    this.released = make.counter('released_total', 'Claimed events handed back unpublished');
    this.pending = make.gauge('pending_events', 'Unpublished, unparked events');
    this.parkedEvents = make.gauge('parked_events', 'Parked events');
    this.oldestAge = make.gauge(
      'oldest_pending_age_seconds',
      'Age of the oldest unpublished event',
    );
    this.running = make.gauge('loop_running', '1 while the relay loop runs');
    this.brokerUp = make.gauge('broker_up', '1 when the last broker probe or publish succeeded');
    this.claimSeconds = make.histogram(
      'claim_duration_seconds',
      'Claim transaction duration',
      SECONDS,
    );
    this.publishSeconds = make.histogram('publish_duration_seconds', 'Kafka request duration', [
      ...SECONDS,
      5,
    ]);
    this.delaySeconds = make.histogram(
      'created_to_published_seconds',
      'Time from recording to broker ack',
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30, 300],
    );
    this.backlogChange = make.gauge(
      'backlog_change_per_second',
      'Rate of change of pending_events over the trend window',
    );
    this.drainRate = make.gauge(
      'drain_rate_per_second',
      'Events this relay published per second over the trend window',
    );
    this.fillRate = make.gauge(
      'fill_rate_per_second',
      'Events recorded per second: this relay drain rate plus the backlog change',
    );
    this.forecastSeconds = make.gauge(
      'backlog_forecast_seconds',
      'Forecast time until the backlog budget is reached (+Inf while draining)',
    );
    this.backlogBudget = make.gauge('backlog_budget_events', 'Configured backlog budget');
    this.ageBudgetSeconds = make.gauge(
      'oldest_age_budget_seconds',
      'Configured age budget of the oldest unpublished event',
    );
    this.pressureLevel = make.gauge(
      'pressure_level',
      'Back-pressure state: 0 ok, 1 warn, 2 critical',
    );
    this.attempts = make.histogram(
      'publish_attempts',
      'Attempts a published event took',
      [1, 2, 3, 4, 5, 7, 10, 15, 20],
    );
    this.failures = make.counter(
      'publish_failures_total',
      'Failed publishes by classified reason',
      ['kind', 'reason'],
    );
    this.publishedAgain = make.counter(
      'published_again_total',
      'Events published more than once, by cause',
      ['cause'],
    );
    this.markSeconds = make.histogram('mark_duration_seconds', 'Mark statement duration', SECONDS);
    this.poolConnections = make.gauge('pool_connections', 'Connections of the relay pool', [
      'state',
    ]);
    this.poolWaiting = make.gauge('pool_waiting_clients', 'Requests waiting for a pool connection');
    this.tableSizeBytes = make.gauge(
      'table_size_bytes',
      'Outbox table size with indexes and TOAST',
    );
    this.deadTuples = make.gauge('table_dead_tuples', 'Dead tuples of the outbox table');
    this.liveTuples = make.gauge('table_live_tuples', 'Live tuples of the outbox table');
    this.sinceAutovacuum = make.gauge(
      'seconds_since_last_autovacuum',
      'Time since the outbox table was last vacuumed (+Inf: never)',
    );
    this.crashLoopSuspects = make.gauge(
      'crash_loop_suspects',
      'Unpublished events an earlier publish of which started and never finished',
    );
    this.statsSamples = make.counter(
      'stats_samples_total',
      "Backlog figures taken: from this relay's stats statement or another relay's pressure row",
      ['source'],
    );
    for (const source of ['own', 'peer']) this.statsSamples.inc({ source }, 0);
    for (const cause of ['lease_lost', 'kill_after_ack', 'replay']) {
      this.publishedAgain.inc({ cause }, 0);
    }
  }

  /** Sets the gauges from a stats snapshot. */
  observeStats(stats: RelayStats): void {
    this.pending.set(stats.pending);
    this.parkedEvents.set(stats.parked);
    this.oldestAge.set(stats.oldestAgeMs / 1000);
    this.crashLoopSuspects.set(stats.suspects);
  }

  /** Sets the capacity gauges from a pressure assessment. */
  observePressure(reading: BacklogAssessment, drainPerSecond: number): void {
    this.backlogChange.set(reading.rates.backlogPerSecond);
    this.drainRate.set(drainPerSecond);
    this.fillRate.set(reading.rates.fillPerSecond);
    this.forecastSeconds.set(reading.forecastSeconds);
    this.pressureLevel.set(PRESSURE_LEVEL_VALUE[reading.state]);
  }
}
