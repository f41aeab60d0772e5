import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_NOTIFY_CHANNEL,
  OptionChecks,
  movedUnder,
  natsConnectOptions,
  qualifiedTable,
  sqlIdentifier,
  resolvePressureOptions,
  type BackoffPolicy,
} from '@nest-outbox/core/internal';
import type { PoolConfig } from 'pg';
import { platformaticClientOptions } from '../platformatic/platformatic-config';
import { RELAY_MODULE } from '../relay.constants';
import { TopicRouter, parseTopicRoutes } from '../routing/topic-router';
import { resolveWalOptions } from './wal-options';
import type {
  RelayModuleOptions,
  RelayTuningOptions,
  RetentionOptions,
  RetryOptions,
} from './relay-options.interface';

/** Options after validation, with every default applied. @publicApi */
export type ResolvedRelayOptions = ReturnType<typeof resolveRelayOptions>;

const check = new OptionChecks(RELAY_MODULE);
const COMPRESSIONS = ['none', 'gzip', 'snappy'] as const;
const CLIENTS = ['kafkajs', 'platformatic'] as const;
const BROKERS = ['kafka', 'nats-jetstream', 'rabbitmq'] as const;

function resolveRetention(
  r: RetentionOptions | false | undefined,
): Required<RetentionOptions> | undefined {
  if (r === false) return undefined;
  return {
    keepMs: check.integer('retention.keepMs', r?.keepMs, 7 * 24 * 3600 * 1000),
    mode: check.oneOf('retention.mode', r?.mode, ['delete', 'archive'], 'delete'),
    batchSize: check.integer('retention.batchSize', r?.batchSize, 1000),
    intervalMs: check.integer('retention.intervalMs', r?.intervalMs, 60_000),
  };
}

function resolveRetry(r: RetryOptions | undefined): BackoffPolicy & { maxAttempts: number } {
  if (r !== undefined && (r === null || typeof r !== 'object')) {
    check.fail('tuning.retry', 'must be { maxAttempts?, baseDelayMs?, maxDelayMs? } (or omitted)');
  }
  const baseMs = check.integer('tuning.retry.baseDelayMs', r?.baseDelayMs, 500);
  const capMs = check.integer('tuning.retry.maxDelayMs', r?.maxDelayMs, 30_000);
  check.ordered(
    { option: 'tuning.retry.baseDelayMs', value: baseMs },
    { option: 'tuning.retry.maxDelayMs', value: capMs },
  );
  const maxAttempts = check.integer('tuning.retry.maxAttempts', r?.maxAttempts, 10);
  return { baseMs, capMs, maxAttempts };
}

/** Old option names, refused with the name of their replacement. */
const RENAMED = {
  ...movedUnder(
    'tuning',
    `table producer compression synchronousCommit batchSize runLimit
    maxRequestBytes leaseMs publishTimeoutMs retry crashLoopThreshold polling listen
    classifyError shutdownTimeoutMs statsIntervalMs tableStatsIntervalMs installSchema
    verifySchema autoStart relayId publisher`,
  ),
  maxOldestAgeMs: 'tuning.unhealthyAfterMs',
  'retention.publishedMs': 'retention.keepMs',
  backoff: ['tuning.retry', 'baseMs -> baseDelayMs, capMs -> maxDelayMs'],
  maxAttempts: 'tuning.retry.maxAttempts',
  'tuning.schema': 'schema',
} as const;

/** Removed options, refused with what to do: an old config never runs silently changed. */
function refuseRemoved(raw: RelayModuleOptions): void {
  const old = raw as { recordEncoder?: unknown; tuning?: { recordEncoder?: unknown } };
  if (old.recordEncoder === undefined && old.tuning?.recordEncoder === undefined) return;
  check.fail(
    old.recordEncoder === undefined ? 'tuning.recordEncoder' : 'recordEncoder',
    "was removed: kafkajs encodes the relay's requests through its public API; delete the option (see CHANGELOG.md)",
  );
}

function resolveConnection(c: unknown): PoolConfig {
  if (typeof c === 'string' && c.length > 0) return { connectionString: c, max: 4 };
  if (typeof c === 'object' && c !== null) return { max: 4, ...(c as PoolConfig) };
  return check.fail(
    'connection',
    'is required: give a PostgreSQL connection string or a pg PoolConfig',
  );
}

function resolveRequired(raw: RelayModuleOptions): void {
  if (!raw.tuning?.publisher && !raw.kafka && (raw.broker ?? 'kafka') === 'kafka')
    check.fail('kafka', 'is required (kafkajs config with brokers) unless a publisher is given');
  if (!raw.routing || typeof raw.routing !== 'object')
    check.fail('routing', 'is required: give { defaultTopic } and/or { routes }');
}

/** The `rabbitmq` connection of `broker: 'rabbitmq'`, with its defaults. */
function resolveRabbitMq(r: RelayModuleOptions['rabbitmq']) {
  if (!r || typeof r.url !== 'string' || !/^amqps?:\/\//.test(r.url))
    return check.fail(
      'rabbitmq.url',
      "is required with broker 'rabbitmq': give 'amqp://user:password@host:5672/vhost'",
    );
  if (r.exchange !== undefined && typeof r.exchange !== 'string')
    check.fail('rabbitmq.exchange', "must be an exchange name ('' for the default exchange)");
  const maxMessageBytes = check.integer(
    'rabbitmq.maxMessageBytes',
    r.maxMessageBytes,
    16 * 1024 * 1024,
  );
  return { ...r, exchange: r.exchange ?? '', maxMessageBytes };
}

/** The client, and with `platformatic`, no setting only kafkajs has. */
function resolveClient(raw: RelayModuleOptions) {
  const client = check.oneOf('client', raw.client, CLIENTS, 'kafkajs');
  if (client === 'platformatic' && !raw.tuning?.publisher) {
    if (raw.tuning?.producer !== undefined)
      check.fail('tuning.producer', "is a kafkajs setting: remove it with client 'platformatic'");
    if (raw.kafka) platformaticClientOptions(raw.kafka);
  }
  return client;
}

/** The broker, and with another than Kafka, its connection and no Kafka setting. */
function resolveBroker(raw: RelayModuleOptions) {
  const broker = check.oneOf('broker', raw.broker, BROKERS, 'kafka');
  if (raw.nats !== undefined && broker !== 'nats-jetstream')
    check.fail('nats', "is a NATS setting: remove it, or set broker 'nats-jetstream'");
  if (raw.rabbitmq !== undefined && broker !== 'rabbitmq')
    check.fail('rabbitmq', "needs broker: 'rabbitmq' (or remove it)");
  if (broker === 'kafka') return { broker, nats: undefined, rabbitmq: undefined };
  const kafkaOnly = {
    kafka: raw.kafka,
    client: raw.client,
    'tuning.producer': raw.tuning?.producer,
    'tuning.compression': raw.tuning?.compression,
  };
  for (const [option, value] of Object.entries(kafkaOnly))
    if (value !== undefined)
      check.fail(option, `is a Kafka setting: remove it with broker '${broker}'`);
  const own = !raw.tuning?.publisher;
  return {
    broker,
    nats:
      own && broker === 'nats-jetstream' ? natsConnectOptions(check, 'nats', raw.nats) : undefined,
    rabbitmq: own && broker === 'rabbitmq' ? resolveRabbitMq(raw.rabbitmq) : undefined,
  };
}

function resolveListenChannel(listen: RelayTuningOptions['listen']): string | undefined {
  const value = listen ?? true;
  if (value === false) return undefined;
  const channel = (typeof value === 'object' && value.channel) || DEFAULT_NOTIFY_CHANNEL;
  sqlIdentifier(RELAY_MODULE, 'tuning.listen.channel', channel);
  return channel;
}

/**
 * Validates `RelayModuleOptions` and applies defaults. Runs at start-up, never later.
 * @throws InvalidOptionsError naming the option and the fix
 * @publicApi
 */
export function resolveRelayOptions(raw: RelayModuleOptions) {
  check.renamed(raw, RENAMED);
  refuseRemoved(raw);
  const t: RelayTuningOptions = raw.tuning ?? {};
  const int = (name: keyof RelayTuningOptions, fallback: number) =>
    check.integer(`tuning.${name}`, t[name], fallback);
  const schema = raw.schema ?? 'public';
  const table = t.table ?? 'outbox';
  resolveRequired(raw);
  const { maxAttempts, ...backoff } = resolveRetry(t.retry);
  const leaseMs = int('leaseMs', 30_000);
  const publishTimeoutMs = int('publishTimeoutMs', 10_000);
  if (publishTimeoutMs >= leaseMs) {
    check.fail(
      'tuning.publishTimeoutMs',
      `(${publishTimeoutMs} ms) must be shorter than tuning.leaseMs (${leaseMs} ms), or a lease could expire while its publish still runs: lower tuning.publishTimeoutMs or raise tuning.leaseMs`,
    );
  }
  const pollMinMs = check.integer('tuning.polling.minMs', t.polling?.minMs, 20);
  const pollMaxMs = check.integer('tuning.polling.maxMs', t.polling?.maxMs, 1000);
  check.ordered(
    { option: 'tuning.polling.minMs', value: pollMinMs },
    { option: 'tuning.polling.maxMs', value: pollMaxMs },
  );
  return {
    raw,
    pool: resolveConnection(raw.connection),
    schema,
    table,
    qualifiedTable: qualifiedTable(RELAY_MODULE, schema, table, 'tuning.table'),
    client: resolveClient(raw),
    ...resolveBroker(raw),
    router: new TopicRouter(parseTopicRoutes(raw.routing.routes), raw.routing.defaultTopic),
    batchSize: int('batchSize', 1000),
    runLimit: int('runLimit', 100),
    maxRequestBytes: int('maxRequestBytes', 900_000),
    compression: check.oneOf('tuning.compression', t.compression, COMPRESSIONS, 'none'),
    synchronousCommit: check.boolean('tuning.synchronousCommit', t.synchronousCommit, false),
    leaseMs,
    publishTimeoutMs,
    backoff,
    maxAttempts,
    crashLoopThreshold: int('crashLoopThreshold', 3),
    pollMinMs,
    pollMaxMs,
    listenChannel: resolveListenChannel(t.listen),
    retention: resolveRetention(raw.retention),
    unhealthyAfterMs: int('unhealthyAfterMs', 60_000),
    shutdownTimeoutMs: int('shutdownTimeoutMs', 10_000),
    statsIntervalMs: int('statsIntervalMs', 5_000),
    pressure: resolvePressureOptions(check, 'pressure', raw.pressure),
    tableStatsIntervalMs: int('tableStatsIntervalMs', 30_000),
    statementTimeoutMs: int('statementTimeoutMs', 5_000),
    installSchema: check.boolean('tuning.installSchema', t.installSchema, false),
    verifySchema: check.boolean('tuning.verifySchema', t.verifySchema, true),
    autoStart: check.boolean('tuning.autoStart', t.autoStart, true),
    relayId: t.relayId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    metrics: check.metrics('metrics', raw.metrics, 'nest_outbox_relay_'),
    /** Set with `mode: 'wal'`. */
    wal: resolveWalOptions(raw.mode, raw.wal, schema, table),
  };
}
