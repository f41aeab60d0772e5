import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_NOTIFY_CHANNEL,
  InvalidOptionsError,
  qualifiedTable,
  sqlIdentifier,
} from '@nest-outbox/core';
import type { PoolConfig } from 'pg';
import { RELAY_MODULE } from '../relay.constants';
import type { KafkaRecordEncoder } from '../publisher/kafka.publisher';
import { TopicRouter, parseTopicRoutes } from '../routing/topic-router';
import type {
  BackoffOptions,
  RelayModuleOptions,
  RetentionOptions,
} from './relay-options.interface';

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
  readonly synchronousCommit: boolean;
  readonly leaseMs: number;
  readonly publishTimeoutMs: number;
  readonly backoff: Required<BackoffOptions>;
  readonly maxAttempts: number;
  readonly crashLoopThreshold: number;
  readonly pollMinMs: number;
  readonly pollMaxMs: number;
  readonly listenChannel: string | undefined;
  readonly retention: Required<RetentionOptions> | undefined;
  readonly maxOldestAgeMs: number;
  readonly shutdownTimeoutMs: number;
  readonly statsIntervalMs: number;
  readonly installSchema: boolean;
  readonly autoStart: boolean;
  readonly relayId: string;
  readonly metricsPrefix: string;
}

function positiveInt(option: string, value: unknown, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) {
    throw new InvalidOptionsError(
      RELAY_MODULE,
      option,
      `must be a positive integer (got ${JSON.stringify(v)})`,
    );
  }
  return v;
}

function resolveRetention(
  r: RetentionOptions | false | undefined,
): Required<RetentionOptions> | undefined {
  if (r === false) return undefined;
  const mode = r?.mode ?? 'delete';
  if (mode !== 'delete' && mode !== 'archive') {
    throw new InvalidOptionsError(
      RELAY_MODULE,
      'retention.mode',
      `must be "delete" or "archive" (got ${JSON.stringify(mode)})`,
    );
  }
  return {
    publishedMs: positiveInt('retention.publishedMs', r?.publishedMs, 7 * 24 * 3600 * 1000),
    mode,
    batchSize: positiveInt('retention.batchSize', r?.batchSize, 1000),
    intervalMs: positiveInt('retention.intervalMs', r?.intervalMs, 60_000),
  };
}

function resolveBackoff(b: BackoffOptions | undefined): Required<BackoffOptions> {
  const baseMs = positiveInt('backoff.baseMs', b?.baseMs, 500);
  const capMs = positiveInt('backoff.capMs', b?.capMs, 30_000);
  if (capMs < baseMs) {
    throw new InvalidOptionsError(
      RELAY_MODULE,
      'backoff.capMs',
      `(${capMs}) must be >= backoff.baseMs (${baseMs})`,
    );
  }
  const jitter = b?.jitter ?? 'equal';
  if (!['full', 'equal', 'none'].includes(jitter)) {
    throw new InvalidOptionsError(
      RELAY_MODULE,
      'backoff.jitter',
      'must be "full", "equal" or "none"',
    );
  }
  return { baseMs, capMs, jitter };
}

function resolveConnection(c: unknown): PoolConfig {
  if (typeof c === 'string' && c.length > 0) return { connectionString: c, max: 4 };
  if (typeof c === 'object' && c !== null) return { max: 4, ...(c as PoolConfig) };
  throw new InvalidOptionsError(
    RELAY_MODULE,
    'connection',
    'is required: give a PostgreSQL connection string or a pg PoolConfig',
  );
}

/**
 * Validates `RelayModuleOptions` and applies defaults. Runs at start-up, never later.
 * @throws InvalidOptionsError naming the option and the fix
 * @publicApi
 */
export function resolveRelayOptions(raw: RelayModuleOptions): ResolvedRelayOptions {
  const schema = raw.schema ?? 'public';
  const table = raw.table ?? 'outbox';
  sqlIdentifier(RELAY_MODULE, 'schema', schema);
  sqlIdentifier(RELAY_MODULE, 'table', table);
  if (!raw.publisher && !raw.kafka) {
    throw new InvalidOptionsError(
      RELAY_MODULE,
      'kafka',
      'is required (kafkajs config with brokers) unless a publisher is given',
    );
  }
  if (!raw.routing || typeof raw.routing !== 'object') {
    throw new InvalidOptionsError(
      RELAY_MODULE,
      'routing',
      'is required: give { defaultTopic } and/or { routes }',
    );
  }
  const leaseMs = positiveInt('leaseMs', raw.leaseMs, 30_000);
  const publishTimeoutMs = positiveInt('publishTimeoutMs', raw.publishTimeoutMs, 10_000);
  if (publishTimeoutMs >= leaseMs) {
    throw new InvalidOptionsError(
      RELAY_MODULE,
      'publishTimeoutMs',
      `(${publishTimeoutMs} ms) must be shorter than leaseMs (${leaseMs} ms), or a lease could expire while its publish still runs: lower publishTimeoutMs or raise leaseMs`,
    );
  }
  const recordEncoder = raw.recordEncoder ?? 'relay';
  if (recordEncoder !== 'relay' && recordEncoder !== 'kafkajs') {
    throw new InvalidOptionsError(
      RELAY_MODULE,
      'recordEncoder',
      `must be "relay" or "kafkajs" (got ${JSON.stringify(recordEncoder)})`,
    );
  }
  const pollMinMs = positiveInt('polling.minMs', raw.polling?.minMs, 20);
  const pollMaxMs = positiveInt('polling.maxMs', raw.polling?.maxMs, 1000);
  if (pollMaxMs < pollMinMs) {
    throw new InvalidOptionsError(
      RELAY_MODULE,
      'polling.maxMs',
      `(${pollMaxMs}) must be >= polling.minMs (${pollMinMs})`,
    );
  }
  const listen = raw.listen ?? true;
  const listenChannel =
    listen === false
      ? undefined
      : (typeof listen === 'object' && listen.channel) || DEFAULT_NOTIFY_CHANNEL;
  if (listenChannel !== undefined) sqlIdentifier(RELAY_MODULE, 'listen.channel', listenChannel);
  return {
    raw,
    pool: resolveConnection(raw.connection),
    schema,
    table,
    qualifiedTable: qualifiedTable(RELAY_MODULE, schema, table),
    router: new TopicRouter(parseTopicRoutes(raw.routing.routes), raw.routing.defaultTopic),
    batchSize: positiveInt('batchSize', raw.batchSize, 1000),
    runLimit: positiveInt('runLimit', raw.runLimit, 100),
    maxRequestBytes: positiveInt('maxRequestBytes', raw.maxRequestBytes, 900_000),
    recordEncoder,
    synchronousCommit: raw.synchronousCommit ?? false,
    leaseMs,
    publishTimeoutMs,
    backoff: resolveBackoff(raw.backoff),
    maxAttempts: positiveInt('maxAttempts', raw.maxAttempts, 10),
    crashLoopThreshold: positiveInt('crashLoopThreshold', raw.crashLoopThreshold, 3),
    pollMinMs,
    pollMaxMs,
    listenChannel,
    retention: resolveRetention(raw.retention),
    maxOldestAgeMs: positiveInt('maxOldestAgeMs', raw.maxOldestAgeMs, 60_000),
    shutdownTimeoutMs: positiveInt('shutdownTimeoutMs', raw.shutdownTimeoutMs, 10_000),
    statsIntervalMs: positiveInt('statsIntervalMs', raw.statsIntervalMs, 5_000),
    installSchema: raw.installSchema ?? false,
    autoStart: raw.autoStart ?? true,
    relayId: raw.relayId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    metricsPrefix: raw.metrics?.prefix ?? 'nest_outbox_relay_',
  };
}
