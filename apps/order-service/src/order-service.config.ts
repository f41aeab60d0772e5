import { EnvReader, readSampleServiceConfig, type SampleServiceConfig } from '../../common/src';

/**
 * Everything the order service reads from its environment, read once at start-up.
 * Schema and topic names are configurable so end-to-end tests can isolate themselves.
 * The shared variables (`SampleServiceConfig`) read here: `PORT` (default 3000), the schema
 * from `ORDERS_SCHEMA` (default `orders`), the topic's partitions from
 * `ORDER_EVENTS_PARTITIONS` (default 6).
 */
export interface OrderServiceConfig extends SampleServiceConfig {
  /** Topic of the order events. `ORDER_EVENTS_TOPIC`, default `orders`. */
  readonly orderEventsTopic: string;
  /** Base URL of the shipping service, read by the reconciliation. `SHIPPING_URL`, default http://127.0.0.1:3001. */
  readonly shippingUrl: string;
  /** Period of the reconciliation job, 0 to disable. `RECONCILE_INTERVAL_MS`, default 60000. */
  readonly reconcileIntervalMs: number;
  /** Window checked by the periodic job. `RECONCILE_WINDOW_MS`, default 1 hour. */
  readonly reconcileWindowMs: number;
  /** Changes younger than this are not judged yet (still flowing). `RECONCILE_SETTLE_MS`, default 30000. */
  readonly reconcileSettleMs: number;
}

/** Reads and validates the configuration; throws `InvalidOptionsError` naming the variable. */
export function loadOrderServiceConfig(env: NodeJS.ProcessEnv = process.env): OrderServiceConfig {
  const read = new EnvReader('order-service', env);
  return {
    ...readSampleServiceConfig(read, {
      defaultPort: 3000,
      schemaVariable: 'ORDERS_SCHEMA',
      defaultSchema: 'orders',
      partitionsVariable: 'ORDER_EVENTS_PARTITIONS',
    }),
    orderEventsTopic: read.text('ORDER_EVENTS_TOPIC', 'orders'),
    shippingUrl: read.text('SHIPPING_URL', 'http://127.0.0.1:3001').replace(/\/$/, ''),
    reconcileIntervalMs: read.int('RECONCILE_INTERVAL_MS', 60_000),
    reconcileWindowMs: read.int('RECONCILE_WINDOW_MS', 3_600_000, 1),
    reconcileSettleMs: read.int('RECONCILE_SETTLE_MS', 30_000),
  };
}

/** DI token of the `OrderServiceConfig`. */
export const ORDER_SERVICE_CONFIG = Symbol('order-service:config');
