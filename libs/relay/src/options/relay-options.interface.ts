import type { PressureOptions } from '@nest-outbox/core';
import type { NatsConnectionOptions } from '@nest-outbox/core/internal';
import type { KafkaConfig, ProducerConfig } from 'kafkajs';
import type { PoolConfig } from 'pg';
import type { ErrorKind } from '../errors/error-kind';
import type { Registry } from 'prom-client';
import type { RelayCompression } from '../publisher/compression';
import type { RelayPublisher } from '../publisher/relay-publisher.interface';
import type { RelayRabbitMqOptions } from '../rabbitmq/rabbitmq.options';
import type { RelayMode, WalRelayOptions } from './wal-options';

/** What a classifier sees about the event whose publish failed (never the payload). */
export interface ClassifiedEvent {
  readonly eventId: string;
  readonly eventType: string;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly topic: string;
  readonly attempt: number;
}

/**
 * User hook deciding the kind of a publish error; return `undefined` to keep the built-in
 * classification (kafkajs protocol error types).
 * @publicApi
 */
export type ErrorClassifier = (error: unknown, event: ClassifiedEvent) => ErrorKind | undefined;

/**
 * Topic routing: a per-event `topic` column wins, then `routes[aggregate_type]`, then
 * `defaultTopic`. An event that matches none is parked ("no topic").
 * @publicApi
 */
export interface TopicRoutingOptions {
  /** Topic for aggregate types without a route. */
  readonly defaultTopic?: string;
  /**
   * `aggregate_type -> topic`, as an object or as the string `"order=orders,payment=payments"`
   * (the form environment variables use).
   */
  readonly routes?: Readonly<Record<string, string>> | string;
}

/** Retries of transient failures: doubling, with jitter, from `baseDelayMs` to `maxDelayMs`. @publicApi */
export interface RetryOptions {
  /** Failed attempts after which an event is parked. @default 10 */
  readonly maxAttempts?: number;
  /** @default 500 */
  readonly baseDelayMs?: number;
  /** @default 30000 */
  readonly maxDelayMs?: number;
}

/** Idle polling bounds: short while busy, doubling with jitter up to `maxMs` while idle. @publicApi */
export interface PollingOptions {
  /** @default 20 */
  readonly minMs?: number;
  /** @default 1000 */
  readonly maxMs?: number;
}

/** Retention of published rows. @publicApi */
export interface RetentionOptions {
  /** How long a row is kept once published. @default 604800000 (7 days) */
  readonly keepMs?: number;
  /** `delete` rows, or move them to `<table>_archive`. @default 'delete' */
  readonly mode?: 'delete' | 'archive';
  /** Rows per housekeeping transaction. @default 1000 */
  readonly batchSize?: number;
  /** Pause between housekeeping runs. @default 60000 */
  readonly intervalMs?: number;
}

/**
 * Options that shape the module itself (given next to the options in both `forRoot` and
 * `forRootAsync`).
 * @publicApi
 */
export interface RelayModuleExtras {
  /** Register the module globally (its exports visible to every module). @default true */
  readonly isGlobal?: boolean;
}

/** The Kafka client of the relay's publisher. @publicApi */
export type RelayKafkaClient = 'kafkajs' | 'platformatic';

/**
 * The NATS connection of `broker: 'nats-jetstream'`: `servers` (required), `name`, `user`,
 * `pass`, `token`, `tls`, and `connection` for any other `ConnectionOptions` of
 * `@nats-io/transport-node`.
 * @publicApi
 */
export type RelayNatsOptions = NatsConnectionOptions;

/** The broker the relay publishes to. @publicApi */
export type RelayBroker = 'kafka' | 'nats-jetstream' | 'rabbitmq';

/**
 * Options of `RelayModule.forRoot()` / `forRootAsync()`.
 * @publicApi
 */
export interface RelayModuleOptions {
  /** PostgreSQL connection string or `pg` PoolConfig of the relay's own small pool. */
  readonly connection: string | PoolConfig;
  /** Schema of the outbox table. @default 'public' */
  readonly schema?: string;
  /**
   * Kafka connection, in kafkajs' shape (brokers, clientId, ssl, sasl, ...), for either client.
   * Not needed with `tuning.publisher`.
   */
  readonly kafka?: KafkaConfig;
  /**
   * The Kafka client that publishes: `kafkajs`, or `platformatic` (`@platformatic/kafka` 1.x, an
   * optional peer: `npm i @platformatic/kafka@^1`), which takes `kafka`'s brokers, clientId,
   * ssl, sasl (plain, scram, oauthbearer) and timeouts, and no `tuning.producer`.
   * @default 'kafkajs'
   */
  readonly client?: RelayKafkaClient;
  /**
   * The broker: `kafka`, or `nats-jetstream` (optional peers: `npm i @nats-io/transport-node@^3
   * @nats-io/jetstream@^3 @nats-io/nats-core@^3`), which takes `nats` instead of `kafka` and
   * publishes each event to subject `<topic>.<aggregate id>` with `Nats-Msg-Id` = event id
   * (see docs/NATS.md); or `rabbitmq` (optional peer: `npm i amqplib@^2`), which takes
   * `rabbitmq` instead of `kafka` (see docs/RABBITMQ.md).
   * @default 'kafka'
   */
  readonly broker?: RelayBroker;
  /** NATS connection of `broker: 'nats-jetstream'`. */
  readonly nats?: RelayNatsOptions;
  /** RabbitMQ connection and exchange of `broker: 'rabbitmq'`. */
  readonly rabbitmq?: RelayRabbitMqOptions;
  readonly routing: TopicRoutingOptions;
  /** Housekeeping of published rows; `false` keeps them forever. @default {} (delete after 7 days) */
  readonly retention?: RetentionOptions | false;
  /**
   * Backlog budget and thresholds of the forecast (`backlog_forecast_seconds`) and of the
   * pressure state (`pressure_level`, health details, the console's pressure), sampled every
   * `statsIntervalMs` and published in the pressure row, which `OutboxModule`'s
   * `pressure: true` reads to refuse non-critical commands. The one place thresholds are set.
   * @default { maxBacklog: 100000, maxOldestAgeMs: 300000, warnPercent: 50, criticalPercent: 90, warnForecastSeconds: 600, criticalForecastSeconds: 60, windowMs: 60000 }
   */
  readonly pressure?: PressureOptions;
  /** prom-client registry (default: the module's own) and name prefix, or `false`. @default { prefix: 'nest_outbox_relay_' } */
  readonly metrics?: { readonly registry?: Registry; readonly prefix?: string } | false;
  /**
   * `polling` claims rows from the table; `wal` reads committed inserts from a logical
   * replication slot (needs `wal_level = logical`, REPLICATION rights and
   * `npx nest-outbox migrate --wal`; see docs/WAL.md). @default 'polling'
   */
  readonly mode?: RelayMode;
  /** Slot, publication and timings of `mode: 'wal'`. */
  readonly wal?: WalRelayOptions;
  /** Settings whose defaults need no touching (see `RelayTuningOptions`). */
  readonly tuning?: RelayTuningOptions;
}

/** `tuning` of `RelayModuleOptions`: settings whose defaults need no touching. @publicApi */
export interface RelayTuningOptions {
  /** @default 'outbox' */
  readonly table?: string;
  /** Extra kafkajs producer settings; `idempotent` and `maxInFlightRequests: 1` are enforced. */
  readonly producer?: Omit<ProducerConfig, 'idempotent' | 'maxInFlightRequests'>;
  /** Compression of the published record batches (kafkajs' codecs). @default 'none' */
  readonly compression?: RelayCompression;
  /** Claims and marks wait for their WAL flush; else one mark per 200 ms does, bounding what a crash forgets. @default false */
  readonly synchronousCommit?: boolean;
  /** Rows per claim. @default 1000 */
  readonly batchSize?: number;
  /** Longest run of one aggregate in a claim. @default 100 */
  readonly runLimit?: number;
  /** Largest sum of record bytes per Kafka request (under the broker's `message.max.bytes`). @default 900000 */
  readonly maxRequestBytes?: number;
  /** Lease duration of a claim. @default 30000 */
  readonly leaseMs?: number;
  /** Publish timeout (must be < leaseMs); cancels the send when it elapses. @default 10000 */
  readonly publishTimeoutMs?: number;
  /** Retry and backoff of transient failures. */
  readonly retry?: RetryOptions;
  /** Publishes started and never finished after which an event is parked as a crash loop. @default 3 */
  readonly crashLoopThreshold?: number;
  readonly polling?: PollingOptions;
  /** LISTEN for producer notifications; `false`: poll only. @default true */
  readonly listen?: boolean | { readonly channel?: string };
  readonly classifyError?: ErrorClassifier;
  /** Health is down when the oldest event the relay can publish is older than this. @default 60000 */
  readonly unhealthyAfterMs?: number;
  /**
   * Bound on the whole graceful shutdown (marks kept through a database outage, at most
   * `MAX_PENDING_MARKS` = 10,000 events, are made within it or given up). @default 10000
   */
  readonly shutdownTimeoutMs?: number;
  /** Period of the backlog figures and the pressure row, shared by the relays of one outbox. @default 5000 */
  readonly statsIntervalMs?: number;
  /** Period of the table's size and vacuum figures and of the oldest open transaction. @default 30000 */
  readonly tableStatsIntervalMs?: number;
  /**
   * `statement_timeout` of every statistics and housekeeping statement (set in its own
   * transaction; claims and marks have none): a slow one is cancelled and cannot hold the
   * xmin horizon for longer. @default 5000
   */
  readonly statementTimeoutMs?: number;
  /** Apply the relay's idempotent DDL at start-up. @default false */
  readonly installSchema?: boolean;
  /** Refuse to start with `RelaySchemaMissingError` when a table is missing. @default true */
  readonly verifySchema?: boolean;
  /** Start the loop at application bootstrap. @default true */
  readonly autoStart?: boolean;
  /** Instance name used in lease tokens and logs. @default `<hostname>-<pid>-<random>` */
  readonly relayId?: string;
  /** A transport other than Kafka (for example the benchmark's null publisher). */
  readonly publisher?: RelayPublisher;
}
