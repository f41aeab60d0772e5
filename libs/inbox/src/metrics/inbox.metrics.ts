import {
  noopMetricFactory,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type MetricFactory,
} from '@nest-outbox/core/internal';
import type { Registry } from 'prom-client';
import { INBOX_METRIC_PREFIX } from '../inbox.constants';
import { applyErrorReason } from './apply-error.reason';
import { inboxModuleMetrics } from './inbox-metrics.factory';

/**
 * The inbox's Prometheus metrics, registered on `metrics.registry` or the module's own
 * `Registry` (token `INBOX_METRICS_REGISTRY`), never on prom-client's global one. prom-client
 * is loaded only when metrics are on; without it every metric is a no-op (one warning). @publicApi
 */
export class InboxMetrics {
  /** Events whose effect committed. */
  readonly applied: CounterMetric<'consumer' | 'topic'>;
  /** Deliveries absorbed because the (consumer, event_id) row already existed. */
  readonly duplicates: CounterMetric<'consumer' | 'topic'>;
  /** Records refused by the guard, by reason code. */
  readonly rejected: CounterMetric<'consumer' | 'topic' | 'reason'>;
  /** Failed handler attempts (each one rolled back). */
  readonly failed: CounterMetric<'consumer' | 'topic'>;
  /** Events given up after their attempts (or a permanent error) and dead-lettered. */
  readonly deadLettered: CounterMetric<'consumer' | 'topic'>;
  /** Events whose aggregate_version was not last + 1. */
  readonly versionGaps: CounterMetric<'consumer' | 'topic'>;
  /** Events skipped because their aggregate_version was already applied. */
  readonly stale: CounterMetric<'consumer' | 'topic'>;
  /**
   * Records committed past although not even a minimal rejected row could be written (the
   * last resort: a log line with topic, partition, offset and reason code says which).
   */
  readonly unrecorded: CounterMetric<'consumer' | 'topic' | 'reason'>;
  /** The group's lag per partition, read from the broker: end offset minus committed offset. */
  readonly lag: GaugeMetric<'group' | 'topic' | 'partition'>;
  /** 1 while a partition is paused by a poison event. */
  readonly paused: GaugeMetric<'topic' | 'partition'>;
  /** Deliveries settled as applied, duplicate or stale (the duplicate share's denominator). */
  readonly received: CounterMetric<'consumer' | 'topic'>;
  /** Failed apply attempts by reason (`ApplyErrorReason`). */
  readonly applyErrors: CounterMetric<'consumer' | 'topic' | 'reason'>;
  /** One handler attempt: dedup registration, version check and the handler. */
  readonly handlerSeconds: HistogramMetric<'consumer'>;
  /** Records finished (effect committed, rejected or dead-lettered) whose offset is not committed. */
  readonly appliedUncommitted: GaugeMetric<'group' | 'topic' | 'partition'>;

  /** @param registry undefined when the metrics are no-ops */
  constructor(
    readonly registry: Registry | undefined,
    readonly prefix = INBOX_METRIC_PREFIX,
    make: MetricFactory = registry
      ? inboxModuleMetrics({ registry, prefix }).make
      : noopMetricFactory,
  ) {
    const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
      make.counter<L>(name, help, labelNames);
    const ct = (): ('consumer' | 'topic')[] => ['consumer', 'topic'];
    const ctr = (): ('consumer' | 'topic' | 'reason')[] => ['consumer', 'topic', 'reason'];
    const gtp = (): ('group' | 'topic' | 'partition')[] => ['group', 'topic', 'partition'];
    this.applied = counter('events_applied_total', 'Events whose effect committed', ct());
    this.duplicates = counter(
      'events_duplicate_total',
      'Duplicate deliveries absorbed by the inbox',
      ct(),
    );
    this.rejected = counter('events_rejected_total', 'Records refused by the guard', ctr());
    this.failed = counter('handler_failures_total', 'Failed handler attempts (rolled back)', ct());
    this.deadLettered = counter(
      'events_dead_lettered_total',
      'Events dead-lettered after their attempts',
      ct(),
    );
    this.versionGaps = counter(
      'version_gaps_total',
      'Events whose aggregate_version skipped one',
      ct(),
    );
    this.stale = counter(
      'events_stale_total',
      'Events whose aggregate_version was already applied',
      ct(),
    );
    this.unrecorded = counter(
      'records_unrecorded_total',
      'Records committed past without a rejected row (last resort, see the log line)',
      ctr(),
    );
    this.lag = make.gauge(
      'consumer_lag',
      'Offset lag of the group per partition (end - committed)',
      gtp(),
    );
    this.paused = make.gauge(
      'partition_paused',
      '1 while a partition is paused by a poison event',
      ['topic', 'partition'],
    );
    this.received = counter(
      'events_received_total',
      'Deliveries settled as applied, duplicate or stale',
      ct(),
    );
    this.applyErrors = counter('apply_errors_total', 'Failed apply attempts by reason', ctr());
    this.handlerSeconds = make.histogram(
      'handler_duration_seconds',
      'Handler attempt duration (dedup, version check, handler)',
      [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      ['consumer'],
    );
    this.appliedUncommitted = make.gauge(
      'applied_uncommitted_offsets',
      'Records finished whose offset is not committed yet, per partition',
      gtp(),
    );
  }

  /** Counts settled records (one consumer and topic) under their outcomes and as received. */
  settledMany(
    tally: { readonly applied: number; readonly duplicate: number; readonly stale: number },
    labels: { consumer: string; topic: string },
  ): void {
    const total = tally.applied + tally.duplicate + tally.stale;
    if (total === 0) return;
    this.received.inc(labels, total);
    if (tally.applied > 0) this.applied.inc(labels, tally.applied);
    if (tally.duplicate > 0) this.duplicates.inc(labels, tally.duplicate);
    if (tally.stale > 0) this.stale.inc(labels, tally.stale);
  }

  /** Counts a failed apply attempt under its reason. */
  applyFailed(
    labels: { consumer: string; topic: string },
    error: unknown,
    permanent: boolean,
  ): void {
    this.applyErrors.inc({ ...labels, reason: applyErrorReason(error, permanent) });
  }
}
