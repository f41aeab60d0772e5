import type { KafkaConfig } from 'kafkajs';
import type { Registry } from 'prom-client';
import type { InboxTableNames } from '../schema/inbox-schema.sql';

/**
 * What happens to an event whose handler still fails after `retry.maxAttempts`:
 * - `'dead-letter'`: recorded in the rejected-messages table (and the dead-letter topic, if
 *   any) with its reason; the offset is committed and the consumer moves on.
 * - `'pause'`: for strictly ordered projections. The partition is paused at that offset,
 *   nothing is committed past it, and the health indicator reports it down.
 * @publicApi
 */
export type ExhaustedPolicy = 'dead-letter' | 'pause';

/**
 * Per-aggregate ordering aid based on `aggregate_version`:
 * - `'off'`: no tracking;
 * - `'log'`: a gap (version > last + 1) is counted and logged, the event is applied;
 * - `'hold'`: a gap is counted and logged, and the event is retried with backoff (held)
 *   until the missing version is applied; after `retry.maxAttempts` the exhausted policy
 *   applies.
 * In every mode but `'off'`, a version at or below the last applied one is skipped
 * (counted as stale), its inbox row kept.
 * @publicApi
 */
export type VersionCheckMode = 'off' | 'log' | 'hold';

/** Retry of a failing handler, inside the consumer, without committing. @publicApi */
export interface InboxRetryOptions {
  /** Attempts in total, the first one included. @default 5 */
  readonly maxAttempts?: number;
  /**
   * Delay after the first failed attempt; it doubles after each further failure, each delay
   * drawn in [delay/2, delay] (the rule of `backoffDelayMs` in `@nest-outbox/core`).
   * @default 200
   */
  readonly baseDelayMs?: number;
  /** Longest delay, before jitter. @default 10000 */
  readonly maxDelayMs?: number;
}

/** Inbox retention and its check against the topics' `retention.ms`. @publicApi */
export interface InboxRetentionOptions {
  /** How long a row is kept once processed; `Infinity` keeps them for ever. @default 1209600000 (14 days) */
  readonly keepMs?: number;
  /** Longest manual replay (offset reset) you may run, on top of topic retention. @default 86400000 (1 day) */
  readonly replayWindowMs?: number;
  /** Refuse to start (default) or only warn loudly when the inbox retention is too short. @default 'refuse' */
  readonly onTooShort?: 'refuse' | 'warn';
  /** Read every handled topic's `retention.ms` at start-up. @default true */
  readonly checkTopics?: boolean;
  /** Pause between pruning runs. @default 60000 */
  readonly intervalMs?: number;
  /** Rows deleted per statement (small batches, no long transaction). @default 1000 */
  readonly batchSize?: number;
}

/** Where the inbox's metrics go. @publicApi */
export interface InboxMetricsOptions {
  /** Where the metrics are registered (token `INBOX_METRICS_REGISTRY`). Default: the module's own. */
  readonly registry?: Registry;
  /** Put before every metric name, for example `'shipping_'`. @default 'nest_outbox_inbox_' */
  readonly prefix?: string;
}

/**
 * Options of `InboxModule.forRoot()` / `forRootAsync()`. Handler-level options given to
 * `@InboxHandler` override the defaults below.
 * @publicApi
 */
export interface InboxModuleOptions extends Pick<InboxTableNames, 'schema'> {
  /**
   * The broker the handlers consume from: `kafka` (`InboxKafkaServer`), or `rabbitmq`
   * (`InboxRmqServer`, no `kafka` needed, no topic retention check; see docs/RABBITMQ.md).
   * @default 'kafka'
   */
  readonly broker?: 'kafka' | 'rabbitmq';
  /** kafkajs client config used for the admin calls (topic retention, lag). `brokers` is required with broker 'kafka'. */
  readonly kafka?: KafkaConfig;
  readonly retry?: InboxRetryOptions;
  /** @default 'dead-letter' */
  readonly onExhausted?: ExhaustedPolicy;
  /** Topic that receives rejected and dead-lettered records (value and headers as received). */
  readonly deadLetterTopic?: string;
  /** @default 'off' */
  readonly versionCheck?: VersionCheckMode;
  readonly retention?: InboxRetentionOptions;
  /** Where the metrics go; `false`: none are exported. */
  readonly metrics?: InboxMetricsOptions | false;
  /** Settings whose defaults need no touching (see `InboxTuningOptions`). */
  readonly tuning?: InboxTuningOptions;
}

/** `tuning` of `InboxModuleOptions`: settings whose defaults need no touching. @publicApi */
export interface InboxTuningOptions extends Omit<InboxTableNames, 'schema'> {
  /** Apply the idempotent DDL at start-up (prefer `createInboxMigration` in production). @default false */
  readonly installSchema?: boolean;
  /** Refuse to start with `InboxSchemaMissingError` when a table is missing. @default true */
  readonly verifySchema?: boolean;
  /** Largest accepted record value in bytes. @default 1048576 */
  readonly maxMessageBytes?: number;
  /** True when retrying cannot help; `InboxPermanentError` is always permanent. */
  readonly isPermanentError?: (error: unknown) => boolean;
}

/**
 * Options that shape the module itself, given next to the options in both `forRoot` and
 * `forRootAsync`.
 * @publicApi
 */
export interface InboxModuleExtras {
  /**
   * Register the module globally, so `@InboxHandler` controllers of any module find its
   * providers; with `false`, import `InboxModule` where those controllers are.
   * @default true
   */
  readonly isGlobal?: boolean;
  /**
   * Name of the `ClsPluginTransactional` connection (and so the data source) the inbox writes
   * through, its inbox rows and the handlers' effects in one transaction; omit for the
   * default, unnamed one. Give `InboxKafkaServer` the same `connectionName`.
   */
  readonly connectionName?: string;
}

/**
 * Options of one `@InboxHandler`.
 * @publicApi
 */
export interface InboxHandlerOptions {
  /** Accepted `event_type`s; anything else is rejected (`unknown_event_type`). Default: all. */
  readonly eventTypes?: readonly string[];
  /** Accepted `schema_version`s. Default: all positive integers. */
  readonly schemaVersions?: readonly number[];
  readonly maxMessageBytes?: number;
  readonly retry?: InboxRetryOptions;
  readonly onExhausted?: ExhaustedPolicy;
  readonly deadLetterTopic?: string;
  readonly versionCheck?: VersionCheckMode;
}

/**
 * What a `forRootAsync({ useClass })` / `useExisting` provider implements.
 * @publicApi
 */
export interface InboxOptionsFactory {
  createInboxOptions(): InboxModuleOptions | Promise<InboxModuleOptions>;
}
