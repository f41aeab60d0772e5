import { InvalidOptionsError } from '@nest-outbox/core';
import type { RelayModuleOptions } from '@nest-outbox/relay';
import { EnvReader } from '../../common/src';

/**
 * RelayModule options of the standalone relay, from the environment:
 * DATABASE_URL, KAFKA_BROKERS (comma-separated), OUTBOX_SCHEMA, OUTBOX_TABLE,
 * RELAY_DEFAULT_TOPIC, RELAY_TOPIC_ROUTES ("order=orders,payment=payments"),
 * RELAY_BATCH_SIZE, RELAY_RUN_LIMIT, RELAY_LEASE_MS, RELAY_PUBLISH_TIMEOUT_MS, RELAY_MAX_ATTEMPTS,
 * RELAY_BACKOFF_BASE_MS, RELAY_BACKOFF_CAP_MS, RELAY_POLL_MIN_MS, RELAY_POLL_MAX_MS,
 * RELAY_RETENTION_MS (0 = keep), RELAY_RETENTION_MODE (delete|archive),
 * RELAY_SHUTDOWN_TIMEOUT_MS, RELAY_KAFKA_CLIENT (kafkajs|platformatic), RELAY_COMPRESSION
 * (none|gzip|snappy),
 * RELAY_INSTALL_SCHEMA (1 = apply the relay DDL at start-up), RELAY_ID.
 * An empty variable counts as unset (the module's default applies).
 * @throws InvalidOptionsError naming the variable and what it must be
 */
export function relayOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): RelayModuleOptions {
  const read = new EnvReader('relay app', env);
  const int = (name: string, min = 1) => read.int(name, undefined, min);
  const text = (name: string) => env[name] || undefined;
  if (text('RELAY_RECORD_ENCODER'))
    throw new InvalidOptionsError(
      'relay app',
      'RELAY_RECORD_ENCODER',
      "was removed (kafkajs encodes the relay's requests): unset it",
    );
  const retentionMs = int('RELAY_RETENTION_MS', 0);
  return {
    connection: env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    kafka: {
      clientId: env.RELAY_ID || 'nest-outbox-relay',
      brokers: (env.KAFKA_BROKERS || '127.0.0.1:9092').split(',').map((b) => b.trim()),
    },
    client: read.oneOf('RELAY_KAFKA_CLIENT', ['kafkajs', 'platformatic'], 'kafkajs'),
    routing: { defaultTopic: text('RELAY_DEFAULT_TOPIC'), routes: text('RELAY_TOPIC_ROUTES') },
    retention:
      retentionMs === 0
        ? false
        : {
            keepMs: retentionMs,
            mode: read.oneOf('RELAY_RETENTION_MODE', ['delete', 'archive'], 'delete'),
          },
    schema: env.OUTBOX_SCHEMA || 'public',
    tuning: {
      table: env.OUTBOX_TABLE || 'outbox',
      batchSize: int('RELAY_BATCH_SIZE'),
      runLimit: int('RELAY_RUN_LIMIT'),
      leaseMs: int('RELAY_LEASE_MS'),
      publishTimeoutMs: int('RELAY_PUBLISH_TIMEOUT_MS'),
      shutdownTimeoutMs: int('RELAY_SHUTDOWN_TIMEOUT_MS'),
      retry: {
        maxAttempts: int('RELAY_MAX_ATTEMPTS'),
        baseDelayMs: int('RELAY_BACKOFF_BASE_MS'),
        maxDelayMs: int('RELAY_BACKOFF_CAP_MS'),
      },
      polling: { minMs: int('RELAY_POLL_MIN_MS'), maxMs: int('RELAY_POLL_MAX_MS') },
      compression: read.oneOf('RELAY_COMPRESSION', ['none', 'gzip', 'snappy'], 'none'),
      installSchema: env.RELAY_INSTALL_SCHEMA === '1',
      relayId: text('RELAY_ID'),
    },
  };
}

/**
 * RELAY_HTTP_PORT: where the standalone relay serves /health and /metrics (default 3100,
 * 0 = no HTTP).
 * @throws InvalidOptionsError when it is not a port number
 */
export function relayHttpPortFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  return new EnvReader('relay app', env).int('RELAY_HTTP_PORT', 3100, 0, 65_535);
}

/**
 * RELAY_HTTP_HOST: the address the standalone relay's HTTP server binds (default 127.0.0.1;
 * `0.0.0.0` in a container, so that Prometheus can scrape /metrics).
 */
export function relayHttpHostFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.RELAY_HTTP_HOST?.trim() || '127.0.0.1';
}
