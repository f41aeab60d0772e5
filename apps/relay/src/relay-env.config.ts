import { InvalidOptionsError } from '@nest-outbox/core';
import type { RelayModuleOptions } from '@nest-outbox/relay';

function int(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value))
    throw new InvalidOptionsError(
      'relay app',
      name,
      `must be an integer (got ${JSON.stringify(raw)})`,
    );
  return value;
}

/**
 * RelayModule options of the standalone relay, from the environment:
 * DATABASE_URL, KAFKA_BROKERS (comma-separated), OUTBOX_SCHEMA, OUTBOX_TABLE,
 * RELAY_DEFAULT_TOPIC, RELAY_TOPIC_ROUTES ("order=orders,payment=payments"),
 * RELAY_BATCH_SIZE, RELAY_RUN_LIMIT, RELAY_LEASE_MS, RELAY_PUBLISH_TIMEOUT_MS, RELAY_MAX_ATTEMPTS,
 * RELAY_BACKOFF_BASE_MS, RELAY_BACKOFF_CAP_MS, RELAY_POLL_MIN_MS, RELAY_POLL_MAX_MS,
 * RELAY_RETENTION_MS (0 = keep), RELAY_RETENTION_MODE (delete|archive),
 * RELAY_SHUTDOWN_TIMEOUT_MS, RELAY_INSTALL_SCHEMA (1 = apply the relay DDL at start-up), RELAY_ID.
 */
export function relayOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): RelayModuleOptions {
  const retentionMs = int(env, 'RELAY_RETENTION_MS');
  return {
    connection: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    schema: env.OUTBOX_SCHEMA ?? 'public',
    table: env.OUTBOX_TABLE ?? 'outbox',
    kafka: {
      clientId: env.RELAY_ID ?? 'nest-outbox-relay',
      brokers: (env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',').map((b) => b.trim()),
    },
    routing: { defaultTopic: env.RELAY_DEFAULT_TOPIC || undefined, routes: env.RELAY_TOPIC_ROUTES },
    batchSize: int(env, 'RELAY_BATCH_SIZE'),
    runLimit: int(env, 'RELAY_RUN_LIMIT'),
    leaseMs: int(env, 'RELAY_LEASE_MS'),
    publishTimeoutMs: int(env, 'RELAY_PUBLISH_TIMEOUT_MS'),
    maxAttempts: int(env, 'RELAY_MAX_ATTEMPTS'),
    shutdownTimeoutMs: int(env, 'RELAY_SHUTDOWN_TIMEOUT_MS'),
    backoff: { baseMs: int(env, 'RELAY_BACKOFF_BASE_MS'), capMs: int(env, 'RELAY_BACKOFF_CAP_MS') },
    polling: { minMs: int(env, 'RELAY_POLL_MIN_MS'), maxMs: int(env, 'RELAY_POLL_MAX_MS') },
    retention:
      retentionMs === 0
        ? false
        : {
            publishedMs: retentionMs,
            mode: env.RELAY_RETENTION_MODE === 'archive' ? 'archive' : 'delete',
          },
    installSchema: env.RELAY_INSTALL_SCHEMA === '1',
    relayId: env.RELAY_ID || undefined,
  };
}
