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
  toKafkaHeaders,
  type EventEnvelope,
  type KafkaHeaderSource,
} from '../event-contract';
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
  type MigrationOptions,
  type SqlMigrationClass,
} from '../sql-migration';
export { errorLabel } from '../error-label';
export { isDatabaseUnavailable } from '../database-unavailable';
export { LOG_FORMAT_ENV, logFormat, logLine } from '../log-line';
export { otelApi } from '../tracing/otel-api';
export { runInSpan } from '../tracing/run-in-span';
export { activeTraceHeaders, parseTraceHeaders } from '../tracing/w3c-trace-context';
export {} from '../pressure/backlog-forecast';
export {
  resolvePressureOptions,
  type PressureOptions,
  type ResolvedPressureOptions,
} from '../pressure/pressure-options';
export { PRESSURE_LEVEL_VALUE, type PressureLevel } from '../pressure/pressure-state';
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
export {
  SQL_ISOLATION_LEVELS,
  type SqlIsolationLevel,
  type SqlTransactionOptions,
} from '../sql/transactional-adapter.interface';
export { TransactionalAdapterPg } from '../sql/pg.transactional-adapter';
export { TransactionalAdapterKysely } from '../sql/kysely.transactional-adapter';
export { TransactionalAdapterMikroOrm } from '../sql/mikro-orm.transactional-adapter';
export type { DataStackFixture } from '../sql/data-stack-fixture';
