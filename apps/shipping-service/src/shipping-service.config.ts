import { InvalidOptionsError, sqlIdentifier } from '@nest-outbox/core';

/**
 * Everything the shipping service reads from its environment, read once at start-up.
 * Schema, topic and group names are configurable so end-to-end tests can isolate themselves.
 */
export interface ShippingServiceConfig {
  /** HTTP port. `PORT`, default 3001. */
  readonly port: number;
  /** `DATABASE_URL`, default postgres://postgres@127.0.0.1:5432/postgres. */
  readonly databaseUrl: string;
  /** Schema of the shipments, inbox, outbox and migrations tables. `SHIPPING_SCHEMA`, default `shipping`. */
  readonly schema: string;
  /** `KAFKA_BROKERS` (comma-separated), default 127.0.0.1:9092. */
  readonly kafkaBrokers: string[];
  /** Topic the order events are read from. `ORDER_EVENTS_TOPIC`, default `orders`. */
  readonly orderEventsTopic: string;
  /** Topic the shipment events are published to. `SHIPMENT_EVENTS_TOPIC`, default `shipments`. */
  readonly shipmentEventsTopic: string;
  /** Partitions of the topics when the service creates them. `TOPIC_PARTITIONS`, default 6. */
  readonly topicPartitions: number;
  /** Create missing topics at start-up. `KAFKA_CREATE_TOPICS`, default true. */
  readonly createTopics: boolean;
  /** Kafka consumer group. `CONSUMER_GROUP`, default `shipping-service`. */
  readonly consumerGroup: string;
  /** Partitions handled concurrently by the consumer. `CONSUMER_CONCURRENCY`, default 3. */
  readonly consumerConcurrency: number;
  /**
   * Kafka consumer session timeout: how long a crashed consumer keeps its partitions before
   * the group reassigns them. `CONSUMER_SESSION_TIMEOUT_MS`, default 30000 (kafkajs' default;
   * the broker's minimum is 6000).
   */
  readonly consumerSessionTimeoutMs: number;
  /** Run the relay of the shipping outbox in this process. `RELAY_EMBEDDED`, default true. */
  readonly relayEmbedded: boolean;
  /** Lease of the embedded relay. `RELAY_LEASE_MS`, default 10000. */
  readonly relayLeaseMs: number;
}

const MODULE = 'shipping-service';

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
export function loadShippingServiceConfig(
  env: NodeJS.ProcessEnv = process.env,
): ShippingServiceConfig {
  const schema = env.SHIPPING_SCHEMA || 'shipping';
  sqlIdentifier(MODULE, 'SHIPPING_SCHEMA', schema);
  return {
    port: int(env, 'PORT', 3001, 1),
    databaseUrl: env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    schema,
    kafkaBrokers: (env.KAFKA_BROKERS || '127.0.0.1:9092').split(',').map((b) => b.trim()),
    orderEventsTopic: env.ORDER_EVENTS_TOPIC || 'orders',
    shipmentEventsTopic: env.SHIPMENT_EVENTS_TOPIC || 'shipments',
    topicPartitions: int(env, 'TOPIC_PARTITIONS', 6, 1),
    createTopics: bool(env, 'KAFKA_CREATE_TOPICS', true),
    consumerGroup: env.CONSUMER_GROUP || 'shipping-service',
    consumerConcurrency: int(env, 'CONSUMER_CONCURRENCY', 3, 1),
    consumerSessionTimeoutMs: int(env, 'CONSUMER_SESSION_TIMEOUT_MS', 30_000, 6000),
    relayEmbedded: bool(env, 'RELAY_EMBEDDED', true),
    relayLeaseMs: int(env, 'RELAY_LEASE_MS', 10_000, 1000),
  };
}

/** DI token of the `ShippingServiceConfig`. */
export const SHIPPING_SERVICE_CONFIG = Symbol('shipping-service:config');

/**
 * The order-events topic, for `@EventPattern` (decorators are evaluated when the class is
 * defined, before any DI): the same `ORDER_EVENTS_TOPIC` variable `loadShippingServiceConfig` reads.
 */
export const ORDER_EVENTS_TOPIC = process.env.ORDER_EVENTS_TOPIC || 'orders';
