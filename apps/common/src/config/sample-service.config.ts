import { pgIdentifier } from '../database/pg-identifier';
import type { EnvReader } from './env.reader';

/**
 * What every sample service reads from its environment (each service's own config extends
 * it). The schema variable, the partitions variable and the defaults differ per service:
 * see its `load…Config`.
 */
export interface SampleServiceConfig {
  /** HTTP port. `PORT`. */
  readonly port: number;
  /** `DATABASE_URL`, default postgres://postgres@127.0.0.1:5432/postgres. */
  readonly databaseUrl: string;
  /** Schema of the service's tables (its own, the outbox's, the relay's, the migrations'). */
  readonly schema: string;
  /** `KAFKA_BROKERS` (comma-separated), default 127.0.0.1:9092. */
  readonly kafkaBrokers: string[];
  /** Partitions of the topics when the service creates them. Default 6. */
  readonly topicPartitions: number;
  /** Create missing topics at start-up. `KAFKA_CREATE_TOPICS`, default true. */
  readonly createTopics: boolean;
  /** Run the relay of the service's outbox in this process. `RELAY_EMBEDDED`, default true. */
  readonly relayEmbedded: boolean;
  /** Lease of the embedded relay. `RELAY_LEASE_MS`, default 10000. */
  readonly relayLeaseMs: number;
  /**
   * Serve the embedded relay's operator console at /operator. `OPERATOR_CONSOLE`, default
   * false; when true, `RELAY_CONSOLE_TOKENS` (`name:token,...`) is required at start-up.
   */
  readonly operatorConsole: boolean;
  /** `RELAY_CONSOLE_TOKENS` as given (parsed by the console). */
  readonly operatorConsoleTokens: string | undefined;
  /**
   * Back-pressure budgets of the embedded relay, which publishes the state the outbox reads:
   * `PRESSURE_MAX_BACKLOG` (default 100000), `PRESSURE_MAX_OLDEST_AGE_MS` (300000),
   * `PRESSURE_WINDOW_MS` (60000); `PRESSURE_INTERVAL_MS` (1000) is its `statsIntervalMs`.
   */
  readonly pressure: {
    readonly maxBacklog: number;
    readonly maxOldestAgeMs: number;
    readonly intervalMs: number;
    readonly windowMs: number;
  };
}

/** Where one service departs from the shared variables. */
export interface SampleServiceEnvNames {
  /** Default of `PORT`. */
  readonly defaultPort: number;
  /** Variable of the schema (`ORDERS_SCHEMA`) and its default (`orders`). */
  readonly schemaVariable: string;
  readonly defaultSchema: string;
  /** Variable of `topicPartitions` (`ORDER_EVENTS_PARTITIONS`, `TOPIC_PARTITIONS`). */
  readonly partitionsVariable: string;
}

/** Reads and validates the shared variables; throws `InvalidOptionsError` naming the variable. */
export function readSampleServiceConfig(
  read: EnvReader,
  names: SampleServiceEnvNames,
): SampleServiceConfig {
  const schema = read.text(names.schemaVariable, names.defaultSchema);
  pgIdentifier(read.module, names.schemaVariable, schema);
  return {
    port: read.int('PORT', names.defaultPort, 1),
    databaseUrl: read.text('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/postgres'),
    schema,
    kafkaBrokers: read
      .text('KAFKA_BROKERS', '127.0.0.1:9092')
      .split(',')
      .map((b) => b.trim()),
    topicPartitions: read.int(names.partitionsVariable, 6, 1),
    createTopics: read.bool('KAFKA_CREATE_TOPICS', true),
    relayEmbedded: read.bool('RELAY_EMBEDDED', true),
    relayLeaseMs: read.int('RELAY_LEASE_MS', 10_000, 1000),
    operatorConsole: read.bool('OPERATOR_CONSOLE', false),
    operatorConsoleTokens: read.text('RELAY_CONSOLE_TOKENS', '') || undefined,
    pressure: {
      maxBacklog: read.int('PRESSURE_MAX_BACKLOG', 100_000, 1),
      maxOldestAgeMs: read.int('PRESSURE_MAX_OLDEST_AGE_MS', 300_000, 1),
      intervalMs: read.int('PRESSURE_INTERVAL_MS', 1_000, 10),
      windowMs: read.int('PRESSURE_WINDOW_MS', 60_000, 10),
    },
  };
}
