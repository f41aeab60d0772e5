import {
  OptionChecks,
  movedUnder,
  qualifiedTable,
  sqlIdentifier,
  type ResolvedMetricsOptions,
} from '@nest-outbox/core/internal';
import type { Registry } from 'prom-client';
import { INBOX_METRIC_PREFIX, INBOX_MODULE } from '../inbox.constants';
import { inboxTableNames, type InboxTableNames } from '../schema/inbox-schema.sql';
import type {
  ExhaustedPolicy,
  InboxHandlerOptions,
  InboxModuleOptions,
  InboxRetentionOptions,
  InboxTuningOptions,
  VersionCheckMode,
} from './inbox-options.interface';

/** Quoted, validated table names, and the names as given (as the DDL functions take them). @internal */
export interface ResolvedTables {
  readonly schema: string;
  readonly inbox: string;
  readonly rejected: string;
  readonly versions: string;
  readonly names: InboxTableNames;
}

/** Everything a handler needs, defaults applied. @internal */
export interface ResolvedHandlerPolicy {
  readonly eventTypes: ReadonlySet<string> | undefined;
  readonly schemaVersions: ReadonlySet<number> | undefined;
  readonly maxMessageBytes: number;
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly onExhausted: ExhaustedPolicy;
  readonly deadLetterTopic: string | undefined;
  readonly versionCheck: VersionCheckMode;
}

/** Module options after validation. @internal */
export interface ResolvedInboxOptions {
  readonly raw: InboxModuleOptions;
  readonly tables: ResolvedTables;
  readonly installSchema: boolean;
  readonly verifySchema: boolean;
  readonly metrics: ResolvedMetricsOptions<Registry>;
  readonly connectionName: string | undefined;
  readonly defaults: Omit<ResolvedHandlerPolicy, 'eventTypes' | 'schemaVersions'>;
  readonly isPermanentError: (error: unknown) => boolean;
  readonly retention: Required<InboxRetentionOptions>;
}

const DAY = 86_400_000;
const EXHAUSTED: readonly ExhaustedPolicy[] = ['dead-letter', 'pause'];
const VERSION_CHECKS: readonly VersionCheckMode[] = ['off', 'log', 'hold'];

/** The inbox's option validators: core `OptionChecks` plus Kafka topic names. */
class InboxOptionChecks extends OptionChecks {
  topicName(option: string, value: unknown): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !/^[a-zA-Z0-9._-]{1,249}$/.test(value)) {
      this.fail(
        option,
        `must be a Kafka topic name (letters, digits, ".", "_", "-") (got ${JSON.stringify(value)})`,
      );
    }
    return value;
  }
}

const check: InboxOptionChecks = new InboxOptionChecks(INBOX_MODULE);

function resolveTables(names: InboxTableNames): ResolvedTables {
  const n = inboxTableNames(names);
  return {
    schema: sqlIdentifier(INBOX_MODULE, 'schema', n.schema),
    inbox: qualifiedTable(INBOX_MODULE, n.schema, n.inbox, 'tuning.table'),
    rejected: qualifiedTable(INBOX_MODULE, n.schema, n.rejected, 'tuning.rejectedTable'),
    versions: qualifiedTable(INBOX_MODULE, n.schema, n.versions, 'tuning.versionsTable'),
    names,
  };
}

/** Old option names, refused with the name of their replacement (no silent aliases). */
const RENAMED = {
  ...movedUnder(
    'tuning',
    `table rejectedTable versionsTable installSchema verifySchema maxMessageBytes
    isPermanentError`,
  ),
  tables: ['tuning', 'tables.inbox is tuning.table, tables.rejected is tuning.rejectedTable'],
  createSchema: 'tuning.installSchema',
  'tuning.schema': 'schema',
  'retry.initialDelayMs': 'retry.baseDelayMs',
  'retention.inboxRetentionMs': 'retention.keepMs',
  'retention.prune': ['retention.keepMs', 'prune: false is keepMs: Infinity'],
  'retention.pruneIntervalMs': 'retention.intervalMs',
  'retention.pruneBatchSize': 'retention.batchSize',
} as const;

function resolveRetention(options: InboxModuleOptions): ResolvedInboxOptions['retention'] {
  const r = options.retention ?? {};
  return {
    keepMs: check.duration('retention.keepMs', r.keepMs, 14 * DAY, { infinite: true }),
    replayWindowMs: check.duration('retention.replayWindowMs', r.replayWindowMs, DAY),
    onTooShort: check.oneOf('retention.onTooShort', r.onTooShort, ['refuse', 'warn'], 'refuse'),
    checkTopics: check.boolean('retention.checkTopics', r.checkTopics, true),
    intervalMs: check.integer('retention.intervalMs', r.intervalMs, 60_000),
    batchSize: check.integer('retention.batchSize', r.batchSize, 1000),
  };
}

/**
 * Validates the module options and applies the defaults. Throws `InvalidOptionsError`
 * naming the wrong option and how to fix it; called once, at start-up.
 * @internal
 */
export function resolveInboxOptions(
  options: InboxModuleOptions | undefined,
  connectionName?: string,
): ResolvedInboxOptions {
  if (!options || typeof options !== 'object')
    check.fail(
      'options',
      'must be an object, for example { kafka: { brokers: ["localhost:9092"] } }',
    );
  const broker = check.oneOf('broker', options.broker, ['kafka', 'rabbitmq'] as const, 'kafka');
  const brokers = options.kafka?.brokers;
  if (broker === 'rabbitmq') {
    if (options.kafka !== undefined)
      check.fail('kafka', "is not used with broker 'rabbitmq': remove it");
  } else if (
    !options.kafka ||
    (Array.isArray(brokers) && brokers.length === 0) ||
    brokers === undefined
  ) {
    check.fail(
      'kafka.brokers',
      'is required (the kafkajs client config used for admin calls), for example { kafka: { brokers: ["localhost:9092"] } }',
    );
  }
  check.renamed(options, RENAMED);
  const t: InboxTuningOptions = options.tuning ?? {};
  if (t.isPermanentError !== undefined && typeof t.isPermanentError !== 'function') {
    check.fail('tuning.isPermanentError', 'must be a function (error) => boolean');
  }
  const maxAttempts = check.integer('retry.maxAttempts', options.retry?.maxAttempts, 5);
  const baseDelayMs = check.duration('retry.baseDelayMs', options.retry?.baseDelayMs, 200);
  const maxDelayMs = check.duration('retry.maxDelayMs', options.retry?.maxDelayMs, 10_000);
  check.ordered(
    { option: 'retry.baseDelayMs', value: baseDelayMs },
    { option: 'retry.maxDelayMs', value: maxDelayMs },
  );
  if (connectionName !== undefined && (typeof connectionName !== 'string' || connectionName === ''))
    check.fail('connectionName', 'must be a non-empty string or left out (the default connection)');
  return {
    raw: options,
    tables: resolveTables({ ...t, schema: options.schema }),
    installSchema: check.boolean('tuning.installSchema', t.installSchema, false),
    verifySchema: check.boolean('tuning.verifySchema', t.verifySchema, true),
    metrics: check.metrics('metrics', options.metrics, INBOX_METRIC_PREFIX),
    connectionName,
    defaults: {
      maxMessageBytes: check.integer('tuning.maxMessageBytes', t.maxMessageBytes, 1_048_576),
      maxAttempts,
      baseDelayMs,
      maxDelayMs,
      onExhausted: check.oneOf('onExhausted', options.onExhausted, EXHAUSTED, 'dead-letter'),
      deadLetterTopic: check.topicName('deadLetterTopic', options.deadLetterTopic),
      versionCheck: check.oneOf('versionCheck', options.versionCheck, VERSION_CHECKS, 'off'),
    },
    isPermanentError: t.isPermanentError ?? (() => false),
    retention: resolveRetention(options),
  };
}

function checkList<T>(
  option: string,
  value: readonly T[] | undefined,
  valid: (item: T) => boolean,
  example: string,
): ReadonlySet<T> | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every(valid)) check.fail(option, `must be ${example}`);
  return new Set(value);
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
  check.renamed(options, { 'retry.initialDelayMs': at('retry.baseDelayMs') });
  const eventTypes = checkList(
    at('eventTypes'),
    options.eventTypes,
    (t) => typeof t === 'string' && t !== '',
    'an array of non-empty strings, for example ["order.confirmed"]',
  );
  const schemaVersions = checkList(
    at('schemaVersions'),
    options.schemaVersions,
    (v) => Number.isInteger(v) && v >= 1,
    'an array of positive integers, for example [1, 2]',
  );
  const baseDelayMs = check.duration(
    at('retry.baseDelayMs'),
    options.retry?.baseDelayMs,
    d.baseDelayMs,
  );
  const maxDelayMs = check.duration(
    at('retry.maxDelayMs'),
    options.retry?.maxDelayMs,
    Math.max(d.maxDelayMs, baseDelayMs),
  );
  check.ordered(
    { option: at('retry.baseDelayMs'), value: baseDelayMs },
    { option: at('retry.maxDelayMs'), value: maxDelayMs },
  );
  return {
    eventTypes,
    schemaVersions,
    maxMessageBytes: check.integer(
      at('maxMessageBytes'),
      options.maxMessageBytes,
      d.maxMessageBytes,
    ),
    maxAttempts: check.integer(at('retry.maxAttempts'), options.retry?.maxAttempts, d.maxAttempts),
    baseDelayMs,
    maxDelayMs,
    onExhausted: check.oneOf(at('onExhausted'), options.onExhausted, EXHAUSTED, d.onExhausted),
    deadLetterTopic:
      check.topicName(at('deadLetterTopic'), options.deadLetterTopic) ?? d.deadLetterTopic,
    versionCheck: check.oneOf(
      at('versionCheck'),
      options.versionCheck,
      VERSION_CHECKS,
      d.versionCheck,
    ),
  };
}
