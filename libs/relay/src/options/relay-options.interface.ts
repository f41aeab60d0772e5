import type { PressureOptions } from '@nest-outbox/core';
import type { KafkaConfig, ProducerConfig } from 'kafkajs';
import type { PoolConfig } from 'pg';
import type { ErrorKind } from '../errors/error-kind';
import type { Registry } from 'prom-client';
import type { RelayCompression } from '../publisher/compression';
import type { KafkaRecordEncoder } from '../publisher/kafka.publisher';
import type { RelayPublisher } from '../publisher/relay-publisher.interface';

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

/**
 * Retries of transient failures, per event (and backoff of failed claims), by the rule of
 * `backoffDelayMs` in `@nest-outbox/core`: doubling from `baseDelayMs` up to `maxDelayMs`,
 * each delay drawn in [delay/2, delay]; the event is parked after `maxAttempts` failed
 * attempts, once its own partition takes other records meanwhile (during an outage, or while
 * its partition has no leader, it backs off at the cap without counting and is not parked).
 * @publicApi
 */
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
  /** Age after publication at which rows go. @default 604800000 (7 days) */
  readonly publishedMs?: number;
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
  /** Register the module globally (its exports visible to every module). @default false */
  readonly isGlobal?: boolean;
}

/**
 * Options of `RelayModule.forRoot()` / `forRootAsync()`.
 * @publicApi
 */
export interface RelayModuleOptions {
  /** PostgreSQL connection string or `pg` PoolConfig of the relay's own small pool. */
  readonly connection: string | PoolConfig;
  /** @default 'public' */
  readonly schema?: string;
  /** @default 'outbox' */
  readonly table?: string;
  /** kafkajs client config (brokers, clientId, ssl, sasl, ...). Not needed with `publisher`. */
  readonly kafka?: KafkaConfig;
  /** Extra kafkajs producer settings; `idempotent` and `maxInFlightRequests: 1` are enforced. */
  readonly producer?: Omit<ProducerConfig, 'idempotent' | 'maxInFlightRequests'>;
  /**
   * Who encodes the Produce requests: `relay`, the relay's own encoder (one buffer per
   * request; the same bytes as kafkajs 2.2.4 puts on the wire, at about a tenth of the CPU per
   * record), or `kafkajs`, kafkajs' own encoder. The relay's encoder fails safe: it is used
   * only with the kafkajs version its specs compare bytes with (2.2.4) and only when both
   * encoders give the same bytes for a synthetic request at start-up; a broker answering
   * `CORRUPT_MESSAGE` or `INVALID_RECORD` to a request it built switches that producer to
   * kafkajs' encoder and retries (never parks). Each fallback is logged as a warning.
   * @default 'relay'
   */
  readonly recordEncoder?: KafkaRecordEncoder;
  /**
   * Compression of the published record batches: `gzip` (built into kafkajs) or `snappy`
   * (pure JavaScript, registered in kafkajs' process-wide codec table unless a snappy codec is
   * there already). The relay's encoder writes compressed batches too (its record bytes
   * compressed by kafkajs' own codec: the same request kafkajs builds).
   * @default 'none'
   */
  readonly compression?: RelayCompression;
  readonly routing: TopicRoutingOptions;
  /**
   * Whether the relay's claims and marks wait for their WAL to be flushed. They do not by
   * default, except one mark per 200 ms: a PostgreSQL crash forgets at most the marks
   * acknowledged since the last such mark (about 200 ms plus one WAL flush), whose events are
   * published again (at-least-once, none lost); no claim holds the claim lock through a flush.
   * Operator actions (retry, skip, republish) always commit synchronously.
   * @default false
   */
  readonly synchronousCommit?: boolean;
  /** Rows per claim. @default 1000 */
  readonly batchSize?: number;
  /**
   * Longest run of one aggregate in a claim: a batch takes whole runs of few aggregates, so
   * several relays work on disjoint aggregates instead of leasing one head each of all of them.
   * @default 100
   */
  readonly runLimit?: number;
  /** Largest sum of record bytes per Kafka request (keep under the broker's `message.max.bytes`). @default 900000 */
  readonly maxRequestBytes?: number;
  /** Lease duration of a claim. @default 30000 */
  readonly leaseMs?: number;
  /** Publish timeout (must be < leaseMs); cancels the send when it elapses. @default 10000 */
  readonly publishTimeoutMs?: number;
  /** Retry and backoff of transient failures. (Formerly `backoff` and `maxAttempts`.) */
  readonly retry?: RetryOptions;
  /** Publishes started and never finished after which an event is parked as a crash loop. @default 3 */
  readonly crashLoopThreshold?: number;
  readonly polling?: PollingOptions;
  /** LISTEN for coalesced producer notifications; `false` to rely on polling alone. @default true */
  readonly listen?: boolean | { readonly channel?: string };
  /** Housekeeping of published rows; `false` keeps them forever. @default {} (delete after 7 days) */
  readonly retention?: RetentionOptions | false;
  readonly classifyError?: ErrorClassifier;
  /**
   * Health is down when the oldest unpublished event the relay can publish (neither parked nor
   * held behind a parked event of its aggregate) is older than this. @default 60000
   */
  readonly maxOldestAgeMs?: number;
  /**
   * prom-client registry (one is created per module when absent) and metric name prefix, or
   * `false` for no metrics.
   * @default { prefix: 'nest_outbox_relay_' }
   */
  readonly metrics?: { readonly registry?: Registry; readonly prefix?: string } | false;
  /**
   * Bound on the whole graceful shutdown: claiming stops, in-flight work is cancelled a
   * reserve before the deadline, unstarted leases are released and the producer is
   * disconnected, all within this time. @default 10000
   */
  readonly shutdownTimeoutMs?: number;
  /**
   * Refresh period of pending/oldest/parked figures (and of the pressure state); longer while
   * their query is slow (a large or bloated table): at least nine times its duration, so that
   * it holds back PostgreSQL's cleanup of the outbox at most ~10% of the time (health checks
   * and the console get the last figures meanwhile). Relays of one outbox share the figures
   * through the pressure row (`<table>_pressure`): while another relay's row is fresh a relay
   * reads it instead, so N relays run the statement about once per interval between them.
   * @default 5000
   */
  readonly statsIntervalMs?: number;
  /**
   * Backlog budget and thresholds of the forecast (`backlog_forecast_seconds`) and of the
   * pressure state (`pressure_level`, health details, the console's pressure), sampled every
   * `statsIntervalMs` and published in the pressure row, which `OutboxModule`'s
   * `pressure: true` reads to refuse non-critical commands. The one place thresholds are set.
   * @default { maxBacklog: 100000, maxOldestAgeMs: 300000, warnPercent: 50, criticalPercent: 90, warnForecastSeconds: 600, criticalForecastSeconds: 60, windowMs: 60000 }
   */
  readonly pressure?: PressureOptions;
  /** Sampling period of the outbox table's size and vacuum figures (`pg_stat_user_tables`). @default 30000 */
  readonly tableStatsIntervalMs?: number;
  /** Apply the relay's idempotent DDL (index, audit and archive tables) at start-up. @default false */
  readonly installSchema?: boolean;
  /**
   * Check at start-up that the outbox table and the relay's audit table exist; a missing one
   * stops the application with `RelaySchemaMissingError`.
   * @default true
   */
  readonly verifySchema?: boolean;
  /** Start the loop at application bootstrap. @default true */
  readonly autoStart?: boolean;
  /** Instance name used in lease tokens and logs. @default `<hostname>-<pid>-<random>` */
  readonly relayId?: string;
  /** A transport other than Kafka (for example the benchmark's null publisher). */
  readonly publisher?: RelayPublisher;
}
