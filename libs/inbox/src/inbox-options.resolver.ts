import { InvalidOptionsError, qualifiedTable, sqlIdentifier } from '@nest-outbox/core';
import { INBOX_MODULE } from './inbox.constants';
import type {
  ExhaustedPolicy,
  InboxHandlerOptions,
  InboxModuleOptions,
  VersionCheckMode,
} from './inbox.options';

/** Quoted, validated table names. @internal */
export interface ResolvedTables {
  readonly schema: string;
  readonly inbox: string;
  readonly rejected: string;
  readonly versions: string;
  /** The raw (unquoted) names, for index names. */
  readonly names: { schema: string; inbox: string; rejected: string; versions: string };
}

/** Everything a handler needs, defaults applied. @internal */
export interface ResolvedHandlerPolicy {
  readonly eventTypes: ReadonlySet<string> | undefined;
  readonly schemaVersions: ReadonlySet<number> | undefined;
  readonly maxMessageBytes: number;
  readonly maxAttempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly onExhausted: ExhaustedPolicy;
  readonly deadLetterTopic: string | undefined;
  readonly versionCheck: VersionCheckMode;
}

/** Module options after validation. @internal */
export interface ResolvedInboxOptions {
  readonly raw: InboxModuleOptions;
  readonly tables: ResolvedTables;
  readonly createSchema: boolean;
  readonly defaults: Omit<ResolvedHandlerPolicy, 'eventTypes' | 'schemaVersions'>;
  readonly isPermanentError: (error: unknown) => boolean;
  readonly retention: {
    readonly inboxRetentionMs: number;
    readonly replayWindowMs: number;
    readonly onTooShort: 'refuse' | 'warn';
    readonly checkTopics: boolean;
    readonly prune: boolean;
    readonly pruneIntervalMs: number;
    readonly pruneBatchSize: number;
  };
}

const DAY = 86_400_000;

function fail(option: string, problem: string): never {
  throw new InvalidOptionsError(INBOX_MODULE, option, problem);
}

function positiveInt(option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    fail(option, `must be a positive integer (got ${JSON.stringify(value)})`);
  }
  return value;
}

function duration(option: string, value: unknown, fallback: number, infinite = false): number {
  if (value === undefined) return fallback;
  if (infinite && value === Infinity) return value;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    fail(
      option,
      `must be a duration in milliseconds >= 0${infinite ? ' or Infinity' : ''} (got ${JSON.stringify(value) ?? typeof value})`,
    );
  }
  return value;
}

function oneOf<T extends string>(
  option: string,
  value: unknown,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) {
    fail(
      option,
      `must be one of ${allowed.map((a) => `'${a}'`).join(', ')} (got ${JSON.stringify(value)})`,
    );
  }
  return value as T;
}

function topicName(option: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[a-zA-Z0-9._-]{1,249}$/.test(value)) {
    fail(
      option,
      `must be a Kafka topic name (letters, digits, ".", "_", "-") (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}

function resolveTables(options: InboxModuleOptions): ResolvedTables {
  const names = {
    schema: options.tables?.schema ?? 'public',
    inbox: options.tables?.inbox ?? 'inbox',
    rejected: options.tables?.rejected ?? 'inbox_rejected',
    versions: options.tables?.versions ?? 'inbox_aggregate_versions',
  };
  sqlIdentifier(INBOX_MODULE, 'tables.schema', names.schema);
  for (const key of ['inbox', 'rejected', 'versions'] as const) {
    sqlIdentifier(INBOX_MODULE, `tables.${key}`, names[key]);
  }
  return {
    schema: sqlIdentifier(INBOX_MODULE, 'tables.schema', names.schema),
    inbox: qualifiedTable(INBOX_MODULE, names.schema, names.inbox),
    rejected: qualifiedTable(INBOX_MODULE, names.schema, names.rejected),
    versions: qualifiedTable(INBOX_MODULE, names.schema, names.versions),
    names,
  };
}

/**
 * Validates the module options and applies the defaults. Throws `InvalidOptionsError`
 * naming the wrong option and how to fix it; called once, at start-up.
 * @internal
 */
export function resolveInboxOptions(options: InboxModuleOptions | undefined): ResolvedInboxOptions {
  if (!options || typeof options !== 'object')
    fail('options', 'must be an object, for example { kafka: { brokers: ["localhost:9092"] } }');
  const brokers = options.kafka?.brokers;
  if (!options.kafka || (Array.isArray(brokers) && brokers.length === 0) || brokers === undefined) {
    fail(
      'kafka.brokers',
      'is required (the kafkajs client config used for admin calls), for example { kafka: { brokers: ["localhost:9092"] } }',
    );
  }
  if (options.isPermanentError !== undefined && typeof options.isPermanentError !== 'function') {
    fail('isPermanentError', 'must be a function (error) => boolean');
  }
  const r = options.retention ?? {};
  const maxAttempts = positiveInt('retry.maxAttempts', options.retry?.maxAttempts, 5);
  const initialDelayMs = duration('retry.initialDelayMs', options.retry?.initialDelayMs, 200);
  const maxDelayMs = duration('retry.maxDelayMs', options.retry?.maxDelayMs, 10_000);
  if (maxDelayMs < initialDelayMs)
    fail('retry.maxDelayMs', `must be >= retry.initialDelayMs (${initialDelayMs})`);
  return {
    raw: options,
    tables: resolveTables(options),
    createSchema: options.createSchema === true,
    defaults: {
      maxMessageBytes: positiveInt('maxMessageBytes', options.maxMessageBytes, 1_048_576),
      maxAttempts,
      initialDelayMs,
      maxDelayMs,
      onExhausted: oneOf(
        'onExhausted',
        options.onExhausted,
        ['dead-letter', 'pause'],
        'dead-letter',
      ),
      deadLetterTopic: topicName('deadLetterTopic', options.deadLetterTopic),
      versionCheck: oneOf('versionCheck', options.versionCheck, ['off', 'log', 'hold'], 'off'),
    },
    isPermanentError: options.isPermanentError ?? (() => false),
    retention: {
      inboxRetentionMs: duration('retention.inboxRetentionMs', r.inboxRetentionMs, 14 * DAY, true),
      replayWindowMs: duration('retention.replayWindowMs', r.replayWindowMs, DAY),
      onTooShort: oneOf('retention.onTooShort', r.onTooShort, ['refuse', 'warn'], 'refuse'),
      checkTopics: r.checkTopics ?? true,
      prune: r.prune ?? true,
      pruneIntervalMs: positiveInt('retention.pruneIntervalMs', r.pruneIntervalMs, 60_000),
      pruneBatchSize: positiveInt('retention.pruneBatchSize', r.pruneBatchSize, 1000),
    },
  };
}

/**
 * Merges one handler's options over the module defaults; throws `InvalidOptionsError`
 * (naming the consumer) when they are invalid.
 * @internal
 */
export function resolveHandlerPolicy(
  consumer: string,
  module: ResolvedInboxOptions,
  options: InboxHandlerOptions,
): ResolvedHandlerPolicy {
  const at = (o: string) => `@InboxHandler('${consumer}').${o}`;
  const d = module.defaults;
  if (
    options.eventTypes !== undefined &&
    (!Array.isArray(options.eventTypes) ||
      options.eventTypes.some((t) => typeof t !== 'string' || t === ''))
  ) {
    fail(
      at('eventTypes'),
      'must be an array of non-empty strings, for example ["order.confirmed"]',
    );
  }
  if (
    options.schemaVersions !== undefined &&
    (!Array.isArray(options.schemaVersions) ||
      options.schemaVersions.some((v) => !Number.isInteger(v) || v < 1))
  ) {
    fail(at('schemaVersions'), 'must be an array of positive integers, for example [1, 2]');
  }
  const initialDelayMs = duration(
    at('retry.initialDelayMs'),
    options.retry?.initialDelayMs,
    d.initialDelayMs,
  );
  const maxDelayMs = duration(
    at('retry.maxDelayMs'),
    options.retry?.maxDelayMs,
    Math.max(d.maxDelayMs, initialDelayMs),
  );
  return {
    eventTypes: options.eventTypes ? new Set(options.eventTypes) : undefined,
    schemaVersions: options.schemaVersions ? new Set(options.schemaVersions) : undefined,
    maxMessageBytes: positiveInt(at('maxMessageBytes'), options.maxMessageBytes, d.maxMessageBytes),
    maxAttempts: positiveInt(at('retry.maxAttempts'), options.retry?.maxAttempts, d.maxAttempts),
    initialDelayMs,
    maxDelayMs,
    onExhausted: oneOf(
      at('onExhausted'),
      options.onExhausted,
      ['dead-letter', 'pause'],
      d.onExhausted,
    ),
    deadLetterTopic: topicName(at('deadLetterTopic'), options.deadLetterTopic) ?? d.deadLetterTopic,
    versionCheck: oneOf(
      at('versionCheck'),
      options.versionCheck,
      ['off', 'log', 'hold'],
      d.versionCheck,
    ),
  };
}
