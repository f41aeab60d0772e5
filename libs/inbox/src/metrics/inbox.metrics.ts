import { Logger } from '@nestjs/common';
import {
  createModuleMetrics,
  noopMetricFactory,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type MetricFactory,
  type ModuleMetrics,
  type PromClient,
  type ResolvedMetricsOptions,
} from '@nest-outbox/core/internal';
import type { Registry } from 'prom-client';
import { InboxVersionGapError } from '../errors/inbox-version-gap.error';
import { INBOX_METRIC_PREFIX } from '../inbox.constants';

type CT = 'consumer' | 'topic';
type CTR = CT | 'reason';
type GTP = 'group' | 'topic' | 'partition';

/**
 * The inbox's Prometheus metrics, registered on `metrics.registry` or the module's own
 * `Registry` (token `INBOX_METRICS_REGISTRY`), never on prom-client's global one. prom-client
 * is loaded only when metrics are on; without it every metric is a no-op (one warning). @publicApi
 */
export class InboxMetrics {
  readonly applied: CounterMetric<CT>;
  readonly duplicates: CounterMetric<CT>;
  readonly rejected: CounterMetric<CTR>;
  readonly failed: CounterMetric<CT>;
  readonly deadLettered: CounterMetric<CT>;
  readonly versionGaps: CounterMetric<CT>;
  readonly stale: CounterMetric<CT>;
  readonly unrecorded: CounterMetric<CTR>;
  readonly lag: GaugeMetric<GTP>;
  readonly paused: GaugeMetric<'topic' | 'partition'>;
  /** The duplicate share's denominator. */
  readonly received: CounterMetric<CT>;
  readonly applyErrors: CounterMetric<CTR>;
  readonly handlerSeconds: HistogramMetric<'consumer'>;
  readonly appliedUncommitted: GaugeMetric<GTP>;

  /** @param registry undefined when the metrics are no-ops */
  constructor(
    readonly registry: Registry | undefined,
    readonly prefix = INBOX_METRIC_PREFIX,
    make: MetricFactory = registry
      ? inboxModuleMetrics({ registry, prefix }).make
      : noopMetricFactory,
  ) {
    const ct: CT[] = ['consumer', 'topic'];
    const ctr: CTR[] = ['consumer', 'topic', 'reason'];
    const gtp: GTP[] = ['group', 'topic', 'partition'];
    this.applied = make.counter('events_applied_total', 'Events whose effect committed', ct);
    this.duplicates = make.counter(
      'events_duplicate_total',
      'Duplicate deliveries absorbed by the inbox',
      ct,
    );
    this.rejected = make.counter('events_rejected_total', 'Records refused by the guard', ctr);
    this.failed = make.counter(
      'handler_failures_total',
      'Failed handler attempts (rolled back)',
      ct,
    );
    this.deadLettered = make.counter(
      'events_dead_lettered_total',
      'Events dead-lettered after their attempts',
      ct,
    );
    this.versionGaps = make.counter(
      'version_gaps_total',
      'Events whose aggregate_version skipped one',
      ct,
    );
    this.stale = make.counter(
      'events_stale_total',
      'Events whose aggregate_version was already applied',
      ct,
    );
    this.unrecorded = make.counter(
      'records_unrecorded_total',
      'Records committed past without a rejected row (last resort, see the log line)',
      ctr,
    );
    this.lag = make.gauge(
      'consumer_lag',
      'Offset lag of the group per partition (end - committed)',
      gtp,
    );
    this.paused = make.gauge(
      'partition_paused',
      '1 while a partition is paused by a poison event',
      ['topic', 'partition'],
    );
    this.received = make.counter(
      'events_received_total',
      'Deliveries settled as applied, duplicate or stale',
      ct,
    );
    this.applyErrors = make.counter('apply_errors_total', 'Failed apply attempts by reason', ctr);
    this.handlerSeconds = make.histogram(
      'handler_duration_seconds',
      'Handler attempt duration (dedup, version check, handler)',
      [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      ['consumer'],
    );
    this.appliedUncommitted = make.gauge(
      'applied_uncommitted_offsets',
      'Records finished whose offset is not committed yet, per partition',
      gtp,
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
  applyFailed(labels: { consumer: string; topic: string }, error: unknown, permanent: boolean) {
    this.applyErrors.inc({ ...labels, reason: applyErrorReason(error, permanent) });
  }
}

/**
 * The inbox's metric factory and registry: prom-client metrics when prom-client is installed
 * (loaded here, never at import), no-ops and one warning when it is not, none with `false`.
 * @throws OptionalPeerMissingError when a registry was given and prom-client is not installed
 * @internal
 */
export function inboxModuleMetrics(
  metrics: ResolvedMetricsOptions<Registry> = { registry: undefined, prefix: INBOX_METRIC_PREFIX },
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional peer, loaded on use
  load = (): PromClient => require('prom-client') as PromClient,
): ModuleMetrics {
  const logger = new Logger('InboxMetrics');
  return createModuleMetrics('InboxModule', metrics, load, (m) => logger.warn(m));
}

/** The bounded `reason` label of `apply_errors_total`. @internal */
export function applyErrorReason(
  error: unknown,
  permanent: boolean,
): 'handler' | 'permanent' | 'database' | 'version_gap' {
  if (error instanceof InboxVersionGapError) return 'version_gap';
  if (permanent) return 'permanent';
  return isDatabaseError(error) ? 'database' : 'handler';
}

/** A PostgreSQL error as node-postgres or TypeORM carries it: a five-character SQLSTATE. */
function isDatabaseError(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  const e = error as { name?: unknown; code?: unknown; driverError?: unknown; cause?: unknown };
  if (e.name === 'QueryFailedError' || e.name === 'DatabaseError') return true;
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return true;
  return isDatabaseError(e.driverError, depth + 1) || isDatabaseError(e.cause, depth + 1);
}
