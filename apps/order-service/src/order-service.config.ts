import { InvalidOptionsError, sqlIdentifier } from '@nest-outbox/core';

/**
 * Everything the order service reads from its environment, read once at start-up.
 * Schema and topic names are configurable so end-to-end tests can isolate themselves.
 */
export interface OrderServiceConfig {
  /** HTTP port. `PORT`, default 3000. */
  readonly port: number;
  /** `DATABASE_URL`, default postgres://postgres@127.0.0.1:5432/postgres. */
  readonly databaseUrl: string;
  /** Schema of the orders table, the outbox and the migrations table. `ORDERS_SCHEMA`, default `orders`. */
  readonly schema: string;
  /** `KAFKA_BROKERS` (comma-separated), default 127.0.0.1:9092. */
  readonly kafkaBrokers: string[];
  /** Topic of the order events. `ORDER_EVENTS_TOPIC`, default `orders`. */
  readonly orderEventsTopic: string;
  /** Partitions of the topic when the service creates it. `ORDER_EVENTS_PARTITIONS`, default 6. */
  readonly topicPartitions: number;
  /** Create the topic at start-up when missing. `KAFKA_CREATE_TOPICS`, default true. */
  readonly createTopics: boolean;
  /** Run the embedded relay in this process. `RELAY_EMBEDDED`, default true. */
  readonly relayEmbedded: boolean;
  /** Lease of the embedded relay. `RELAY_LEASE_MS`, default 10000. */
  readonly relayLeaseMs: number;
  /** Base URL of the shipping service, read by the reconciliation. `SHIPPING_URL`, default http://127.0.0.1:3001. */
  readonly shippingUrl: string;
  /** Period of the reconciliation job, 0 to disable. `RECONCILE_INTERVAL_MS`, default 60000. */
  readonly reconcileIntervalMs: number;
  /** Window checked by the periodic job. `RECONCILE_WINDOW_MS`, default 1 hour. */
  readonly reconcileWindowMs: number;
  /** Changes younger than this are not judged yet (still flowing). `RECONCILE_SETTLE_MS`, default 30000. */
  readonly reconcileSettleMs: number;
}

const MODULE = 'order-service';

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new InvalidOptionsError(MODULE, name, `must be an integer >= ${min} (got "${raw}")`);
  }
  return value;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new InvalidOptionsError(MODULE, name, `must be true or false (got "${raw}")`);
}

/** Reads and validates the configuration; throws `InvalidOptionsError` naming the variable. */
export function loadOrderServiceConfig(env: NodeJS.ProcessEnv = process.env): OrderServiceConfig {
  const schema = env.ORDERS_SCHEMA || 'orders';
  sqlIdentifier(MODULE, 'ORDERS_SCHEMA', schema);
  return {
    port: int(env, 'PORT', 3000, 1),
    databaseUrl: env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    schema,
    kafkaBrokers: (env.KAFKA_BROKERS || '127.0.0.1:9092').split(',').map((b) => b.trim()),
    orderEventsTopic: env.ORDER_EVENTS_TOPIC || 'orders',
    topicPartitions: int(env, 'ORDER_EVENTS_PARTITIONS', 6, 1),
    createTopics: bool(env, 'KAFKA_CREATE_TOPICS', true),
    relayEmbedded: bool(env, 'RELAY_EMBEDDED', true),
    relayLeaseMs: int(env, 'RELAY_LEASE_MS', 10_000, 1000),
    shippingUrl: (env.SHIPPING_URL || 'http://127.0.0.1:3001').replace(/\/$/, ''),
    reconcileIntervalMs: int(env, 'RECONCILE_INTERVAL_MS', 60_000),
    reconcileWindowMs: int(env, 'RECONCILE_WINDOW_MS', 3_600_000, 1),
    reconcileSettleMs: int(env, 'RECONCILE_SETTLE_MS', 30_000),
  };
}

/** DI token of the `OrderServiceConfig`. */
export const ORDER_SERVICE_CONFIG = Symbol('order-service:config');
