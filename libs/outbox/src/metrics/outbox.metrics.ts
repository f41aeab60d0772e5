import { Logger } from '@nestjs/common';
import {
  createModuleMetrics,
  type CounterMetric,
  type HistogramMetric,
  type MetricFactory,
  type PromClient,
} from '@nest-outbox/core/internal';
import type { Registry } from 'prom-client';
import type { ResolvedOutboxOptions } from '../outbox-options.interface';

/** Distinct values an application label (`event_type`, `command`) keeps; the rest are `other`. */
const MAX_LABEL_VALUES = 100;

/** The producer's metrics (docs/METRICS.md). @internal */
export class OutboxMetrics {
  readonly recorded: CounterMetric<'event_type'>;
  readonly transactionSeconds: HistogramMetric<'outcome'>;
  readonly flushRows: HistogramMetric;
  readonly transitionsRefused: CounterMetric;
  readonly refused: CounterMetric<'command'>;
  readonly idempotent: CounterMetric<'outcome'>;
  private readonly seen = new Map<string, Set<string>>();

  constructor(
    make: MetricFactory,
    readonly registry: Registry | undefined,
  ) {
    this.recorded = make.counter('events_recorded_total', 'Events written to the outbox', [
      'event_type',
    ]);
    this.transactionSeconds = make.histogram(
      'transaction_duration_seconds',
      'Outermost outbox transaction duration, the flush included',
      [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      ['outcome'],
    );
    this.flushRows = make.histogram(
      'flush_rows',
      'Rows per outbox flush',
      [1, 2, 5, 10, 25, 50, 100, 250, 1000],
    );
    this.transitionsRefused = make.counter(
      'transitions_refused_total',
      'Transitions refused with InvalidTransitionError',
    );
    this.refused = make.counter(
      'back_pressure_refused_total',
      'Non-critical commands refused under back-pressure',
      ['command'],
    );
    this.idempotent = make.counter(
      'idempotent_requests_total',
      'Requests with an idempotency key: applied, replayed, or rejected (key reused, 422)',
      ['outcome'],
    );
  }

  bounded(label: string, value: string): string {
    let values = this.seen.get(label);
    if (!values) this.seen.set(label, (values = new Set()));
    if (values.has(value)) return value;
    if (values.size >= MAX_LABEL_VALUES) return 'other';
    values.add(value);
    return value;
  }

  flushed(eventTypes: readonly string[]): void {
    if (eventTypes.length === 0) return;
    this.flushRows.observe(eventTypes.length);
    const counts = new Map<string, number>();
    for (const t of eventTypes) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [t, n] of counts)
      this.recorded.inc({ event_type: this.bounded('event_type', t) }, n);
  }
}

/** prom-client is required from this package (its peer), on use. @internal */
export function createOutboxMetrics(options: ResolvedOutboxOptions): OutboxMetrics {
  const logger = new Logger('OutboxMetrics');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional peer, loaded on use
  const load = () => require('prom-client') as PromClient;
  const { make, registry } = createModuleMetrics('OutboxModule', options.metrics, load, (m) =>
    logger.warn(m),
  );
  return new OutboxMetrics(make, registry);
}
