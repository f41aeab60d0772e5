import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RelayStats } from '../store/relay-stats';

/**
 * The relay's prom-client metrics, in the registry given by option (or one per module):
 * never the global registry, so two apps in one process do not collide. Labels are bounded
 * (error kinds only; no event or aggregate ids).
 * @publicApi
 */
export class RelayMetrics {
  readonly published: Counter;
  readonly retried: Counter<'kind'>;
  readonly parked: Counter<'kind'>;
  readonly leaseLost: Counter;
  readonly released: Counter;
  readonly pending: Gauge;
  readonly parkedEvents: Gauge;
  readonly oldestAge: Gauge;
  readonly running: Gauge;
  readonly brokerUp: Gauge;
  readonly claimSeconds: Histogram;
  readonly publishSeconds: Histogram;
  readonly delaySeconds: Histogram;

  constructor(
    readonly registry: Registry,
    prefix: string,
  ) {
    const registers = [registry];
    this.published = new Counter({
      name: `${prefix}published_total`,
      help: 'Events published and marked',
      registers,
    });
    this.retried = new Counter({
      name: `${prefix}retried_total`,
      help: 'Failed publishes scheduled for retry',
      labelNames: ['kind'],
      registers,
    });
    this.parked = new Counter({
      name: `${prefix}parked_total`,
      help: 'Events parked',
      labelNames: ['kind'],
      registers,
    });
    this.leaseLost = new Counter({
      name: `${prefix}lease_lost_total`,
      help: 'Published events whose mark was refused because the lease was lost',
      registers,
    });
    this.released = new Counter({
      name: `${prefix}released_total`,
      help: 'Claimed events handed back unpublished',
      registers,
    });
    this.pending = new Gauge({
      name: `${prefix}pending_events`,
      help: 'Unpublished, unparked events',
      registers,
    });
    this.parkedEvents = new Gauge({
      name: `${prefix}parked_events`,
      help: 'Parked events',
      registers,
    });
    this.oldestAge = new Gauge({
      name: `${prefix}oldest_pending_age_seconds`,
      help: 'Age of the oldest unpublished event',
      registers,
    });
    this.running = new Gauge({
      name: `${prefix}loop_running`,
      help: '1 while the relay loop runs',
      registers,
    });
    this.brokerUp = new Gauge({
      name: `${prefix}broker_up`,
      help: '1 when the last broker probe or publish succeeded',
      registers,
    });
    this.claimSeconds = new Histogram({
      name: `${prefix}claim_duration_seconds`,
      help: 'Claim transaction duration',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    });
    this.publishSeconds = new Histogram({
      name: `${prefix}publish_duration_seconds`,
      help: 'Kafka request duration',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers,
    });
    this.delaySeconds = new Histogram({
      name: `${prefix}created_to_published_seconds`,
      help: 'Time from recording to broker ack',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30, 300],
      registers,
    });
  }

  /** Sets the gauges from a stats snapshot. */
  observeStats(stats: RelayStats): void {
    this.pending.set(stats.pending);
    this.parkedEvents.set(stats.parked);
    this.oldestAge.set(stats.oldestAgeMs / 1000);
  }
}
