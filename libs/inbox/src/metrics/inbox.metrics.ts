import type { Registry } from 'prom-client';
import { Counter, Gauge } from 'prom-client';

/**
 * The inbox's Prometheus metrics, registered on `metrics.registry` or the module's own
 * `Registry` (token `INBOX_METRICS_REGISTRY`), never on prom-client's global one.
 * @publicApi
 */
export class InboxMetrics {
  /** Events whose effect committed. */
  readonly applied: Counter<'consumer' | 'topic'>;
  /** Deliveries absorbed because the (consumer, event_id) row already existed. */
  readonly duplicates: Counter<'consumer' | 'topic'>;
  /** Records refused by the guard, by reason code. */
  readonly rejected: Counter<'consumer' | 'topic' | 'reason'>;
  /** Failed handler attempts (each one rolled back). */
  readonly failed: Counter<'consumer' | 'topic'>;
  /** Events given up after their attempts (or a permanent error) and dead-lettered. */
  readonly deadLettered: Counter<'consumer' | 'topic'>;
  /** Events whose aggregate_version was not last + 1. */
  readonly versionGaps: Counter<'consumer' | 'topic'>;
  /** Events skipped because their aggregate_version was already applied. */
  readonly stale: Counter<'consumer' | 'topic'>;
  /** Offset lag per partition after the last processed batch. */
  readonly lag: Gauge<'group' | 'topic' | 'partition'>;
  /** 1 while a partition is paused by a poison event. */
  readonly paused: Gauge<'topic' | 'partition'>;

  /** @param prefix put before every metric name (`metrics.prefix`) */
  constructor(
    readonly registry: Registry,
    readonly prefix = '',
  ) {
    const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
      new Counter<L>({ name: prefix + name, help, labelNames, registers: [registry] });
    this.applied = counter('inbox_events_applied_total', 'Events whose effect committed', [
      'consumer',
      'topic',
    ]);
    this.duplicates = counter(
      'inbox_events_duplicate_total',
      'Duplicate deliveries absorbed by the inbox',
      ['consumer', 'topic'],
    );
    this.rejected = counter('inbox_events_rejected_total', 'Records refused by the guard', [
      'consumer',
      'topic',
      'reason',
    ]);
    this.failed = counter('inbox_handler_failures_total', 'Failed handler attempts (rolled back)', [
      'consumer',
      'topic',
    ]);
    this.deadLettered = counter(
      'inbox_events_dead_lettered_total',
      'Events dead-lettered after their attempts',
      ['consumer', 'topic'],
    );
    this.versionGaps = counter(
      'inbox_version_gaps_total',
      'Events whose aggregate_version skipped one',
      ['consumer', 'topic'],
    );
    this.stale = counter(
      'inbox_events_stale_total',
      'Events whose aggregate_version was already applied',
      ['consumer', 'topic'],
    );
    this.lag = new Gauge({
      name: `${prefix}inbox_consumer_lag`,
      help: 'Offset lag per partition',
      labelNames: ['group', 'topic', 'partition'],
      registers: [registry],
    });
    this.paused = new Gauge({
      name: `${prefix}inbox_partition_paused`,
      help: '1 while a partition is paused by a poison event',
      labelNames: ['topic', 'partition'],
      registers: [registry],
    });
  }
}
