import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_NOTIFY_CHANNEL,
  OptionChecks,
  qualifiedTable,
  sqlIdentifier,
  resolvePressureOptions,
  type BackoffPolicy,
  type ResolvedPressureOptions,
} from '@nest-outbox/core/internal';
import type { PoolConfig } from 'pg';
import { RELAY_MODULE } from '../relay.constants';
import type { RelayCompression } from '../publisher/compression';
import type { KafkaRecordEncoder } from '../publisher/kafka.publisher';
import { TopicRouter, parseTopicRoutes } from '../routing/topic-router';
import type { Registry } from 'prom-client';
import type { RelayModuleOptions, RetentionOptions, RetryOptions } from './relay-options.interface';

/** Options after validation, with every default applied. @publicApi */
export interface ResolvedRelayOptions {
  readonly raw: RelayModuleOptions;
  readonly pool: PoolConfig;
  readonly schema: string;
  readonly table: string;
  /** `"schema"."table"`, validated. */
  readonly qualifiedTable: string;
  readonly router: TopicRouter;
  readonly batchSize: number;
  readonly runLimit: number;
  readonly maxRequestBytes: number;
  readonly recordEncoder: KafkaRecordEncoder;
  readonly compression: RelayCompression;
  readonly synchronousCommit: boolean;
  readonly leaseMs: number;
  readonly publishTimeoutMs: number;
  readonly backoff: BackoffPolicy;
  readonly maxAttempts: number;
  readonly crashLoopThreshold: number;
  readonly pollMinMs: number;
  readonly pollMaxMs: number;
  readonly listenChannel: string | undefined;
  readonly retention: Required<RetentionOptions> | undefined;
  readonly maxOldestAgeMs: number;
  readonly shutdownTimeoutMs: number;
  readonly statsIntervalMs: number;
  /** Budgets and thresholds of the backlog forecast and pressure state. */
  readonly pressure: ResolvedPressureOptions;
  readonly tableStatsIntervalMs: number;
  readonly installSchema: boolean;
  readonly verifySchema: boolean;
  readonly autoStart: boolean;
  readonly relayId: string;
  readonly metrics: { readonly registry: Registry | undefined; readonly prefix: string } | false;
}

const check = new OptionChecks(RELAY_MODULE);

function resolveRetention(
  r: RetentionOptions | false | undefined,
): Required<RetentionOptions> | undefined {
  if (r === false) return undefined;
  return {
    publishedMs: check.integer('retention.publishedMs', r?.publishedMs, 7 * 24 * 3600 * 1000),
    mode: check.oneOf('retention.mode', r?.mode, ['delete', 'archive'], 'delete'),
    batchSize: check.integer('retention.batchSize', r?.batchSize, 1000),
    intervalMs: check.integer('retention.intervalMs', r?.intervalMs, 60_000),
  };
}

function resolveRetry(r: RetryOptions | undefined): BackoffPolicy & { maxAttempts: number } {
  if (r !== undefined && (r === null || typeof r !== 'object')) {
    check.fail('retry', 'must be { maxAttempts?, baseDelayMs?, maxDelayMs? } (or omitted)');
  }
  const baseMs = check.integer('retry.baseDelayMs', r?.baseDelayMs, 500);
  const capMs = check.integer('retry.maxDelayMs', r?.maxDelayMs, 30_000);
  check.ordered(
    { option: 'retry.baseDelayMs', value: baseMs },
    { option: 'retry.maxDelayMs', value: capMs },
  );
  return { baseMs, capMs, maxAttempts: check.integer('retry.maxAttempts', r?.maxAttempts, 10) };
}

/** Old option names, refused with the name of their replacement. */
const RENAMED = {
  backoff: ['retry', 'backoff.baseMs -> retry.baseDelayMs, backoff.capMs -> retry.maxDelayMs'],
  maxAttempts: 'retry.maxAttempts',
} as const;

function resolveConnection(c: unknown): PoolConfig {
  if (typeof c === 'string' && c.length > 0) return { connectionString: c, max: 4 };
  if (typeof c === 'object' && c !== null) return { max: 4, ...(c as PoolConfig) };
  return check.fail(
    'connection',
    'is required: give a PostgreSQL connection string or a pg PoolConfig',
  );
}

function resolveRequired(raw: RelayModuleOptions): void {
  if (!raw.publisher && !raw.kafka)
    check.fail('kafka', 'is required (kafkajs config with brokers) unless a publisher is given');
  if (!raw.routing || typeof raw.routing !== 'object')
    check.fail('routing', 'is required: give { defaultTopic } and/or { routes }');
}

function resolveListenChannel(listen: RelayModuleOptions['listen']): string | undefined {
  const value = listen ?? true;
  if (value === false) return undefined;
  const channel = (typeof value === 'object' && value.channel) || DEFAULT_NOTIFY_CHANNEL;
  sqlIdentifier(RELAY_MODULE, 'listen.channel', channel);
  return channel;
}

/**
 * Validates `RelayModuleOptions` and applies defaults. Runs at start-up, never later.
 * @throws InvalidOptionsError naming the option and the fix
 * @publicApi
 */
export function resolveRelayOptions(raw: RelayModuleOptions): ResolvedRelayOptions {
  check.renamed(raw, RENAMED);
  const schema = raw.schema ?? 'public';
  const table = raw.table ?? 'outbox';
  resolveRequired(raw);
  const { maxAttempts, ...backoff } = resolveRetry(raw.retry);
  const leaseMs = check.integer('leaseMs', raw.leaseMs, 30_000);
  const publishTimeoutMs = check.integer('publishTimeoutMs', raw.publishTimeoutMs, 10_000);
  if (publishTimeoutMs >= leaseMs) {
    check.fail(
      'publishTimeoutMs',
      `(${publishTimeoutMs} ms) must be shorter than leaseMs (${leaseMs} ms), or a lease could expire while its publish still runs: lower publishTimeoutMs or raise leaseMs`,
    );
  }
  const pollMinMs = check.integer('polling.minMs', raw.polling?.minMs, 20);
  const pollMaxMs = check.integer('polling.maxMs', raw.polling?.maxMs, 1000);
  check.ordered(
    { option: 'polling.minMs', value: pollMinMs },
    { option: 'polling.maxMs', value: pollMaxMs },
  );
  return {
    raw,
    pool: resolveConnection(raw.connection),
    schema,
    table,
    qualifiedTable: qualifiedTable(RELAY_MODULE, schema, table),
    router: new TopicRouter(parseTopicRoutes(raw.routing.routes), raw.routing.defaultTopic),
    batchSize: check.integer('batchSize', raw.batchSize, 1000),
    runLimit: check.integer('runLimit', raw.runLimit, 100),
    maxRequestBytes: check.integer('maxRequestBytes', raw.maxRequestBytes, 900_000),
    recordEncoder: check.oneOf('recordEncoder', raw.recordEncoder, ['relay', 'kafkajs'], 'relay'),
    compression: check.oneOf('compression', raw.compression, ['none', 'gzip', 'snappy'], 'none'),
    synchronousCommit: check.boolean('synchronousCommit', raw.synchronousCommit, false),
    leaseMs,
    publishTimeoutMs,
    backoff,
    maxAttempts,
    crashLoopThreshold: check.integer('crashLoopThreshold', raw.crashLoopThreshold, 3),
    pollMinMs,
    pollMaxMs,
    listenChannel: resolveListenChannel(raw.listen),
    retention: resolveRetention(raw.retention),
    maxOldestAgeMs: check.integer('maxOldestAgeMs', raw.maxOldestAgeMs, 60_000),
    shutdownTimeoutMs: check.integer('shutdownTimeoutMs', raw.shutdownTimeoutMs, 10_000),
    statsIntervalMs: check.integer('statsIntervalMs', raw.statsIntervalMs, 5_000),
    pressure: resolvePressureOptions(check, 'pressure', raw.pressure),
    tableStatsIntervalMs: check.integer('tableStatsIntervalMs', raw.tableStatsIntervalMs, 30_000),
    installSchema: check.boolean('installSchema', raw.installSchema, false),
    verifySchema: check.boolean('verifySchema', raw.verifySchema, true),
    autoStart: check.boolean('autoStart', raw.autoStart, true),
    relayId: raw.relayId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    metrics: check.metrics('metrics', raw.metrics, 'nest_outbox_relay_'),
  };
}
