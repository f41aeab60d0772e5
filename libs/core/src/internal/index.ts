/**
 * The machinery the nest-outbox libraries share: option checks, metrics, periodic tasks,
 * transactions, CLI parsing, migrations, pressure figures, tracing and log lines. Internal:
 * not a documented API, and it changes without notice. Import from `@nest-outbox/core`.
 * @internal
 */
export { NestOutboxError, InvalidOptionsError } from '../nest-outbox.error';
export { RenamedOptionError } from '../renamed-option.error';
export { OptionalPeerMissingError } from '../optional-peer-missing.error';
export { loadOptionalPeer } from '../optional-peer';
export {
  createModuleMetrics,
  noopMetricFactory,
  promMetricFactory,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type MetricFactory,
  type ModuleMetrics,
  type PromClient,
} from '../metric.factory';
export { sqlIdentifier, qualifiedTable } from '../sql-identifier';
export { uuidv7, isUuid } from '../uuid-v7';
export {
  EVENT_HEADERS,
  isReservedHeader,
  readHeaders,
  toKafkaHeaders,
  type EventEnvelope,
  type KafkaHeaderSource,
  type RawHeaderValue,
} from '../event-contract';
export {
  DEFAULT_NOTIFY_CHANNEL,
  OUTBOX_WAKEUP,
  OutboxWakeup,
  type WakeupListener,
} from '../outbox-wakeup';
export { Backoff, backoffDelayMs, type BackoffPolicy } from '../backoff';
export {
  inOneQueryTransaction,
  inTransaction,
  type TransactionClient,
  type TransactionPool,
} from '../in-transaction';
export { PeriodicTask, type PeriodicTaskOptions } from '../periodic-task';
export {
  OptionChecks,
  type IntegerRange,
  type MetricsOptions,
  type ResolvedMetricsOptions,
} from '../option-checks';
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
  type TableMigrationSpec,
  type MigrationOptions,
  type MigrationQueryRunner,
  type SqlMigrationClass,
} from '../sql-migration';
export { errorLabel } from '../error-label';
export { isDatabaseUnavailable } from '../database-unavailable';
export {
  escapeControl,
  LOG_FORMAT_ENV,
  logFormat,
  logLine,
  type LogFields,
  type LogFormat,
  type LogObject,
} from '../log-line';
export { otelApi, type OtelApi } from '../tracing/otel-api';
export { runInSpan } from '../tracing/run-in-span';
export {
  activeTraceHeaders,
  formatTraceHeaders,
  parseTraceHeaders,
  type TraceHeaders,
} from '../tracing/w3c-trace-context';
export { BacklogTrend, type BacklogRates, type BacklogSample } from '../pressure/backlog-trend';
export {
  forecastSecondsToBudget,
  type BacklogBudget,
  type BacklogNow,
} from '../pressure/backlog-forecast';
export {
  resolvePressureOptions,
  type PressureOptions,
  type ResolvedPressureOptions,
} from '../pressure/pressure-options';
export {
  evaluatePressure,
  PRESSURE_LEVEL_VALUE,
  type PressureLevel,
  type PressureReading,
} from '../pressure/pressure-state';
export { BacklogPressure, type BacklogAssessment } from '../pressure/backlog-pressure';
export { heldBehindParkedSql } from '../pressure/held-back.sql';
export { pressureView, type PressureView } from '../pressure/pressure-view';
export { pressureRowSql, type PressureRow } from '../pressure/pressure-row.sql';
export {
  sqlExecutorOf,
  UnknownDataStackError,
  type SqlExecutor,
  type SqlExecutorFactory,
} from '../sql/sql-executor';
export type {
  SqlIsolationLevel,
  SqlTransactionOptions,
} from '../sql/transactional-adapter.interface';
export { TransactionalAdapterPg } from '../sql/pg.transactional-adapter';
export { TransactionalAdapterKysely } from '../sql/kysely.transactional-adapter';
export { TransactionalAdapterMikroOrm } from '../sql/mikro-orm.transactional-adapter';
export type { DataStackFixture } from '../sql/data-stack-fixture';
