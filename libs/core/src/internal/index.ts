/**
 * The machinery the nest-outbox libraries share: option checks, metrics, periodic tasks,
 * transactions, CLI parsing, migrations, pressure figures, tracing and log lines, next to
 * everything `@nest-outbox/core` exports. Internal: not a documented API, and it changes
 * without notice. Users import from `@nest-outbox/core`.
 * @internal
 */
export * from '../index';
export { loadOptionalPeer } from '../optional-peer';
export { relationExists } from '../sql/sql-executor';
export {
  createModuleMetrics,
  noopMetricFactory,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type MetricFactory,
  type ModuleMetrics,
  type PromClient,
} from '../metric.factory';
export { sqlIdentifier, qualifiedTable } from '../sql-identifier';
export { isUuid } from '../uuid-v7';
export { isReservedHeader } from '../event-contract';
export { DEFAULT_NOTIFY_CHANNEL, OUTBOX_WAKEUP, OutboxWakeup } from '../outbox-wakeup';
export { Backoff, backoffDelayMs, type BackoffPolicy } from '../backoff';
export { inOneQueryTransaction, inTransaction, type TransactionClient } from '../in-transaction';
export { PeriodicTask } from '../periodic-task';
export { OptionChecks, movedUnder, type ResolvedMetricsOptions } from '../option-checks';
export {
  CliUsageError,
  parseCliArgs,
  runCli,
  type CliFlag,
  type CliIo,
  type CliSpec,
  type CliValues,
  type ParsedCli,
} from '../cli-args';
export {
  createSqlMigration,
  createTableMigration,
  migrationName,
  type SqlMigrationClass,
} from '../sql-migration';
export { errorLabel } from '../error-label';
export { isDatabaseUnavailable } from '../database-unavailable';
export { LOG_FORMAT_ENV, logLine } from '../log-line';
export { otelApi } from '../tracing/otel-api';
export { runInSpan } from '../tracing/run-in-span';
export { activeTraceHeaders, parseTraceHeaders } from '../tracing/w3c-trace-context';
export { resolvePressureOptions } from '../pressure/pressure-options';
export {
  BacklogPressure,
  PRESSURE_LEVEL_VALUE,
  pressureView,
  type BacklogAssessment,
  type PressureView,
} from '../pressure/backlog-pressure';
export { pressureRowSql, type PressureRow } from '../pressure/pressure-row.sql';
export {
  SQL_ISOLATION_LEVELS,
  type SqlIsolationLevel,
} from '../sql/transactional-adapter.interface';
export type { DataStackFixture } from '../sql/data-stack-fixture';
export { crc32c } from '../crc32c';
export { natsConnectOptions, type NatsConnectionOptions } from '../nats/nats-connection.options';
export {
  PartitionMaintainer,
  PartitionSetupError,
  PERIODS_AHEAD,
  type PartitionDb,
  type PartitionPass,
  type PartitionedTable,
  type PartitionRetention,
} from '../partitions/partition-maintainer';
export {
  keepDuration,
  partitionPeriod,
  periodStart,
  uuidAt,
  type PartitionPeriod,
  type PartitionPolicy,
} from '../partitions/partition-period';
export { readPartitionState, type PartitionState } from '../partitions/partition-catalog.sql';
