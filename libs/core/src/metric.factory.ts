import type * as PromClientModule from 'prom-client';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { OptionalPeerMissingError } from './optional-peer-missing.error';
import { loadOptionalPeer } from './optional-peer';
import type { ResolvedMetricsOptions } from './option-checks';

/** prom-client as loaded at run time (never imported statically: it is an optional peer). @publicApi */
export type PromClient = typeof PromClientModule;

/** What the libraries call on a counter, a gauge, a histogram. @publicApi */
export type CounterMetric<L extends string = string> = Pick<Counter<L>, 'inc'>;
/** @publicApi */
export type GaugeMetric<L extends string = string> = Pick<Gauge<L>, 'set'>;
/** @publicApi */
export type HistogramMetric<L extends string = string> = Pick<
  Histogram<L>,
  'observe' | 'startTimer'
>;

/** Creates the metrics of one module: real ones in a registry, or no-ops. @publicApi */
export interface MetricFactory {
  counter<L extends string = never>(name: string, help: string, labelNames?: L[]): CounterMetric<L>;
  /** `collect` runs before each scrape of the gauge (prom-client's `collect`). */
  gauge<L extends string = never>(
    name: string,
    help: string,
    labelNames?: L[],
    collect?: () => void,
  ): GaugeMetric<L>;
  histogram<L extends string = never>(
    name: string,
    help: string,
    buckets: number[],
    labelNames?: L[],
  ): HistogramMetric<L>;
}

const noop = {
  inc: () => undefined,
  set: () => undefined,
  observe: () => undefined,
  startTimer: () => () => 0,
};

/** Metrics that record nothing (`metrics: false`, or prom-client not installed). @publicApi */
export const noopMetricFactory: MetricFactory = {
  counter: () => noop,
  gauge: () => noop,
  histogram: () => noop,
};

/** prom-client metrics named `<prefix><name>` in `registry` (never the global one). */
function promMetricFactory(client: PromClient, registry: Registry, prefix: string): MetricFactory {
  const config = <L extends string>(name: string, help: string, labelNames: L[] = []) => ({
    name: `${prefix}${name}`,
    help,
    labelNames,
    registers: [registry],
  });
  return {
    counter: (name, help, labelNames) => new client.Counter(config(name, help, labelNames)),
    gauge: (name, help, labelNames, collect) =>
      new client.Gauge({ ...config(name, help, labelNames), collect }),
    histogram: (name, help, buckets, labelNames) =>
      new client.Histogram({ ...config(name, help, labelNames), buckets }),
  };
}

/** The metrics of one module and the registry they live in (undefined for no-ops). @publicApi */
export interface ModuleMetrics {
  readonly make: MetricFactory;
  readonly registry: Registry | undefined;
}

/**
 * No-ops with `metrics: false`; prom-client metrics in the given registry (or a new one) when
 * installed; else no-ops and one `warn`.
 * @param load the calling package's `() => require('prom-client')` (the peer is its own)
 * @throws OptionalPeerMissingError when a registry was given and prom-client is not installed
 * @publicApi
 */
export function createModuleMetrics(
  module: string,
  metrics: ResolvedMetricsOptions<Registry>,
  load: () => PromClient,
  warn: (message: string) => void,
): ModuleMetrics {
  if (metrics === false) return { make: noopMetricFactory, registry: undefined };
  const client = loadOptionalPeer('prom-client', load);
  if (!client) {
    if (metrics.registry)
      throw new OptionalPeerMissingError(module, 'prom-client', 'metrics.registry');
    warn(
      `prom-client is not installed: ${module} records no metrics (npm i prom-client to get them, or set metrics: false to silence this warning)`,
    );
    return { make: noopMetricFactory, registry: undefined };
  }
  const registry = metrics.registry ?? new client.Registry();
  return { make: promMetricFactory(client, registry, metrics.prefix), registry };
}
