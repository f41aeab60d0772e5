import {
  DEFAULT_NOTIFY_CHANNEL,
  OptionChecks,
  activeTraceHeaders,
  movedUnder,
  otelApi,
  qualifiedTable,
  sqlExecutorOf,
  sqlIdentifier,
} from '@nest-outbox/core/internal';
import { idempotencyOptions } from './idempotency/idempotency-options';
import type {
  OutboxModuleExtras,
  OutboxModuleOptions,
  OutboxTuningOptions,
  ResolvedOutboxOptions,
} from './outbox-options.interface';

const MODULE = 'OutboxModule';

const check: OptionChecks = new OptionChecks(MODULE);

const RENAMED = {
  ...movedUnder(
    'tuning',
    `table maxPayloadBytes notifyChannel notifyCoalesceMs traceContext installSchema
    verifySchema sqlExecutor`,
  ),
  verifyTableOnStartup: 'tuning.verifySchema',
  'tuning.schema': 'schema',
};

function notifyChannel(value: unknown): string | false {
  if (value === undefined) return DEFAULT_NOTIFY_CHANNEL;
  if (value === false) return false;
  sqlIdentifier(MODULE, 'tuning.notifyChannel', value);
  return value as string;
}

/** The thresholds of old are the relay's now, and say so. */
function pressureOption(value: unknown): boolean {
  if (typeof value === 'object' && value !== null)
    check.fail(
      'pressure',
      "must be true or false: the relay samples the backlog and publishes the state, so set the thresholds in RelayModule's pressure option and pressure: true here",
    );
  return check.boolean('pressure', value, false);
}

/**
 * @throws InvalidOptionsError naming the first wrong option and how to fix it
 * @internal
 */
export function resolveOutboxOptions(
  options: OutboxModuleOptions | undefined,
  { connectionName, isGlobal }: OutboxModuleExtras = {},
): ResolvedOutboxOptions {
  if (options === null || typeof options !== 'object')
    check.fail('options', 'must be an object (or omitted)');
  check.renamed(options, RENAMED);
  const t: OutboxTuningOptions = options.tuning ?? {};
  const schema = options.schema ?? 'public';
  const table = t.table ?? 'outbox';
  const quoted = qualifiedTable(MODULE, schema, table, 'tuning.table');
  const trace: unknown = t.traceContext;
  if (trace !== undefined && trace !== false && typeof trace !== 'function')
    check.fail(
      'tuning.traceContext',
      'must be a function, false (store no trace context) or omitted (OpenTelemetry when installed)',
    );
  if (t.sqlExecutor !== undefined && typeof t.sqlExecutor !== 'function')
    check.fail(
      'tuning.sqlExecutor',
      'must be a function (tx) => SqlExecutor, or omitted (the stack is recognised from TransactionHost.tx)',
    );
  if (connectionName !== undefined && (typeof connectionName !== 'string' || !connectionName))
    check.fail('connectionName', 'must be a non-empty string');
  check.boolean('isGlobal', isGlobal, true);
  const traceContext = t.traceContext ?? (otelApi() ? activeTraceHeaders : false);
  return {
    schema,
    table,
    qualifiedTable: quoted,
    maxPayloadBytes: check.integer('tuning.maxPayloadBytes', t.maxPayloadBytes, 1_000_000),
    notifyChannel: notifyChannel(t.notifyChannel),
    notifyCoalesceMs: check.integer('tuning.notifyCoalesceMs', t.notifyCoalesceMs, 5, { min: 0 }),
    traceContext: traceContext || undefined,
    installSchema: check.boolean('tuning.installSchema', t.installSchema, false),
    verifySchema: check.boolean('tuning.verifySchema', t.verifySchema, true),
    metrics: check.metrics('metrics', options.metrics, 'nest_outbox_outbox_'),
    pressure: pressureOption(options.pressure),
    idempotency: idempotencyOptions(check, options.idempotency, schema, table),
    sqlExecutor: t.sqlExecutor ?? sqlExecutorOf,
    connectionName,
  };
}
