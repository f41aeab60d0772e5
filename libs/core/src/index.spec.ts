import { barrelExports, internalExports } from '@test/support';

describe('@nest-outbox/core public barrel', () => {
  it('exports exactly this list (any change to the public API shows here as a diff)', () => {
    expect(barrelExports('libs/core/src/index.ts')).toMatchInlineSnapshot(`
     [
       "function activeTraceHeaders",
       "class Backoff",
       "function backoffDelayMs",
       "interface BackoffPolicy",
       "type CliFlag",
       "interface CliIo",
       "interface CliSpec",
       "class CliUsageError",
       "type CliValues",
       "type CounterMetric",
       "function createModuleMetrics",
       "function createSqlMigration",
       "function createTableMigration",
       "const DEFAULT_NOTIFY_CHANNEL",
       "function errorLabel",
       "const EVENT_HEADERS",
       "interface EventEnvelope",
       "function formatTraceHeaders",
       "type GaugeMetric",
       "type HistogramMetric",
       "interface IntegerRange",
       "function inTransaction",
       "class InvalidOptionsError",
       "function isReservedHeader",
       "function isUuid",
       "type KafkaHeaderSource",
       "function loadOptionalPeer",
       "interface MetricFactory",
       "interface MetricsOptions",
       "function migrationName",
       "interface MigrationOptions",
       "interface MigrationQueryRunner",
       "interface ModuleMetrics",
       "class NestOutboxError",
       "const noopMetricFactory",
       "class OptionalPeerMissingError",
       "class OptionChecks",
       "function otelApi",
       "type OtelApi",
       "const OUTBOX_WAKEUP",
       "class OutboxWakeup",
       "function parseCliArgs",
       "interface ParsedCli",
       "function parseTraceHeaders",
       "class PeriodicTask",
       "interface PeriodicTaskOptions",
       "type PromClient",
       "function promMetricFactory",
       "function qualifiedTable",
       "type RawHeaderValue",
       "function readHeaders",
       "class RenamedOptionError",
       "type ResolvedMetricsOptions",
       "function runCli",
       "function runInSpan",
       "function sqlIdentifier",
       "type SqlMigrationClass",
       "interface TableMigrationSpec",
       "function toKafkaHeaders",
       "interface TraceHeaders",
       "interface TransactionClient",
       "interface TransactionPool",
       "function uuidv7",
       "type WakeupListener",
     ]
    `);
  });

  it('exports nothing tagged @internal', () => {
    // The tracing helpers (libs/core/src/tracing) are public: the relay, outbox and inbox
    // import them across package boundaries.
    expect(internalExports('libs/core/src/index.ts')).toEqual([]);
  });
});
