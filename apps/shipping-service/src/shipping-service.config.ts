import { EnvReader, readSampleServiceConfig, type SampleServiceConfig } from '../../common/src';

/**
 * Everything the shipping service reads from its environment, read once at start-up.
 * Schema, topic and group names are configurable so end-to-end tests can isolate themselves.
 * The shared variables (`SampleServiceConfig`) read here: `PORT` (default 3001), the schema
 * of the shipments, inbox, outbox and migrations tables from `SHIPPING_SCHEMA` (default
 * `shipping`), the topics' partitions from `TOPIC_PARTITIONS` (default 6); `RELAY_EMBEDDED`
 * runs the relay of the shipping outbox in this process.
 */
export interface ShippingServiceConfig extends SampleServiceConfig {
  /** Topic the order events are read from. `ORDER_EVENTS_TOPIC`, default `orders`. */
  readonly orderEventsTopic: string;
  /** Topic the shipment events are published to. `SHIPMENT_EVENTS_TOPIC`, default `shipments`. */
  readonly shipmentEventsTopic: string;
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
}

/** Reads and validates the configuration; throws `InvalidOptionsError` naming the variable. */
export function loadShippingServiceConfig(
  env: NodeJS.ProcessEnv = process.env,
): ShippingServiceConfig {
  const read = new EnvReader('shipping-service', env);
  return {
    ...readSampleServiceConfig(read, {
      defaultPort: 3001,
      schemaVariable: 'SHIPPING_SCHEMA',
      defaultSchema: 'shipping',
      partitionsVariable: 'TOPIC_PARTITIONS',
    }),
    orderEventsTopic: read.text('ORDER_EVENTS_TOPIC', 'orders'),
    shipmentEventsTopic: read.text('SHIPMENT_EVENTS_TOPIC', 'shipments'),
    consumerGroup: read.text('CONSUMER_GROUP', 'shipping-service'),
    consumerConcurrency: read.int('CONSUMER_CONCURRENCY', 3, 1),
    consumerSessionTimeoutMs: read.int('CONSUMER_SESSION_TIMEOUT_MS', 30_000, 6000),
  };
}

/** DI token of the `ShippingServiceConfig`. */
export const SHIPPING_SERVICE_CONFIG = Symbol('shipping-service:config');

/**
 * The order-events topic, for `@EventPattern` (decorators are evaluated when the class is
 * defined, before any DI): the same `ORDER_EVENTS_TOPIC` variable `loadShippingServiceConfig` reads.
 */
export const ORDER_EVENTS_TOPIC = process.env.ORDER_EVENTS_TOPIC || 'orders';
