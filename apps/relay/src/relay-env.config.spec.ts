import { InvalidOptionsError } from '@nest-outbox/core';
import { relayHttpPortFromEnv, relayOptionsFromEnv } from './relay-env.config';

describe('relayOptionsFromEnv', () => {
  it('maps the environment to RelayModule options', () => {
    const options = relayOptionsFromEnv({
      DATABASE_URL: 'postgres://relay@db/app',
      KAFKA_BROKERS: 'k1:9092, k2:9092',
      OUTBOX_SCHEMA: 'orders',
      OUTBOX_TABLE: 'order_outbox',
      RELAY_DEFAULT_TOPIC: 'events',
      RELAY_TOPIC_ROUTES: 'order=orders',
      RELAY_BATCH_SIZE: '250',
      RELAY_LEASE_MS: '20000',
      RELAY_BACKOFF_BASE_MS: '100',
      RELAY_RETENTION_MS: '3600000',
      RELAY_RETENTION_MODE: 'archive',
      RELAY_COMPRESSION: 'snappy',
      RELAY_INSTALL_SCHEMA: '1',
      RELAY_ID: 'relay-7',
    });
    expect(options).toMatchObject({
      connection: 'postgres://relay@db/app',
      kafka: { clientId: 'relay-7', brokers: ['k1:9092', 'k2:9092'] },
      routing: { defaultTopic: 'events', routes: 'order=orders' },
      retention: { keepMs: 3_600_000, mode: 'archive' },
      schema: 'orders',
      tuning: {
        table: 'order_outbox',
        batchSize: 250,
        leaseMs: 20_000,
        retry: { baseDelayMs: 100, maxDelayMs: undefined },
        compression: 'snappy',
        installSchema: true,
        relayId: 'relay-7',
      },
    });
  });

  it("leaves unset and empty variables to the module's defaults, and keeps rows forever with RELAY_RETENTION_MS=0", () => {
    const options = relayOptionsFromEnv({ RELAY_BATCH_SIZE: '', RELAY_RETENTION_MS: '0' });
    expect(options.schema).toBe('public');
    expect(options.tuning).toMatchObject({
      batchSize: undefined,
      compression: 'none',
    });
    expect(options.retention).toBe(false);
    expect(options.client).toBe('kafkajs');
  });

  it('publishes through @platformatic/kafka with RELAY_KAFKA_CLIENT=platformatic', () => {
    expect(relayOptionsFromEnv({ RELAY_KAFKA_CLIENT: 'platformatic' }).client).toBe('platformatic');
  });

  it.each([
    [
      { RELAY_BATCH_SIZE: 'abc' },
      /option "RELAY_BATCH_SIZE" must be an integer >= 1 written in digits \(got "abc"\)/,
    ],
    [
      { RELAY_LEASE_MS: '1e4' },
      /option "RELAY_LEASE_MS" must be an integer >= 1 written in digits/,
    ],
    [
      { RELAY_MAX_ATTEMPTS: '0' },
      /option "RELAY_MAX_ATTEMPTS" must be an integer >= 1 written in digits \(got "0"\)/,
    ],
    [{ RELAY_RETENTION_MS: '-1' }, /option "RELAY_RETENTION_MS" must be an integer >= 0/],
    [
      { RELAY_RETENTION_MODE: 'drop' },
      /option "RELAY_RETENTION_MODE" must be one of "delete", "archive"/,
    ],
    [{ RELAY_RECORD_ENCODER: 'relay' }, /option "RELAY_RECORD_ENCODER" was removed .*: unset it/],
    [
      { RELAY_KAFKA_CLIENT: 'rdkafka' },
      /option "RELAY_KAFKA_CLIENT" must be one of "kafkajs", "platformatic"/,
    ],
    [
      { RELAY_COMPRESSION: 'zstd' },
      /option "RELAY_COMPRESSION" must be one of "none", "gzip", "snappy"/,
    ],
  ])('refuses %p at start-up with a typed error naming the variable', (env, message) => {
    expect(() => relayOptionsFromEnv(env)).toThrow(InvalidOptionsError);
    expect(() => relayOptionsFromEnv(env)).toThrow(message);
  });
});

describe('relayHttpPortFromEnv', () => {
  it('defaults to 3100, takes 0 for no HTTP, and refuses what is not a port', () => {
    expect(relayHttpPortFromEnv({})).toBe(3100);
    expect(relayHttpPortFromEnv({ RELAY_HTTP_PORT: '0' })).toBe(0);
    expect(() => relayHttpPortFromEnv({ RELAY_HTTP_PORT: '70000' })).toThrow(
      /option "RELAY_HTTP_PORT" must be an integer from 0 to 65535/,
    );
    expect(() => relayHttpPortFromEnv({ RELAY_HTTP_PORT: 'http' })).toThrow(InvalidOptionsError);
  });
});
