import type { Registry } from 'prom-client';
import type { RelayStats } from '../store/relay-stats';
import type { CounterMetric, GaugeMetric, HistogramMetric, MetricFactory } from '@nest-outbox/core';

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
      [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    );
    this.publishSeconds = make.histogram(
      'publish_duration_seconds',
      'Kafka request duration',
      [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    );
    this.delaySeconds = make.histogram(
      'created_to_published_seconds',
      'Time from recording to broker ack',
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30, 300],
    );
  }

  /** Sets the gauges from a stats snapshot. */
  observeStats(stats: RelayStats): void {
    this.pending.set(stats.pending);
    this.parkedEvents.set(stats.parked);
    this.oldestAge.set(stats.oldestAgeMs / 1000);
  }
}
