import { InvalidOptionsError } from '@nest-outbox/core';
import {
  DEFAULT_NOTIFY_CHANNEL,
  OptionChecks,
  movedUnder,
  qualifiedTable,
  sqlExecutorOf,
  sqlIdentifier,
} from '@nest-outbox/core/internal';
import { otelTraceContext } from './event/otel-trace-context';
import type {
  OutboxModuleOptions,
  OutboxTuningOptions,
  ResolvedOutboxOptions,
} from './outbox-options.interface';

const MODULE = 'OutboxModule';

const check = new OptionChecks(MODULE);

/** Old option names, refused with the name of their replacement. */
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

/** `pressure`: a boolean; the thresholds of old are the relay's now, and say so. */
function pressureOption(check: OptionChecks, value: unknown): boolean {
  if (typeof value === 'object' && value !== null) {
    check.fail(
      'pressure',
      "must be true or false: the relay samples the backlog and publishes the state, so set the thresholds in RelayModule's pressure option and pressure: true here",
    );
  }
  return check.boolean('pressure', value, false);
}

/**
 * Validates the options and applies the defaults.
 * @throws InvalidOptionsError naming the first wrong option and how to fix it
 * @internal
 */
export function resolveOutboxOptions(
  options: OutboxModuleOptions | undefined,
  connectionName: string | undefined,
): ResolvedOutboxOptions {
  if (options === null || typeof options !== 'object') {
    throw new InvalidOptionsError(MODULE, 'options', 'must be an object (or omitted)');
  }
  check.renamed(options, RENAMED);
  const t: OutboxTuningOptions = options.tuning ?? {};
  const schema = options.schema ?? 'public';
  const table = t.table ?? 'outbox';
  const quoted = qualifiedTable(MODULE, schema, table, 'tuning.table');
  if (
    t.traceContext !== undefined &&
    t.traceContext !== false &&
    typeof t.traceContext !== 'function'
  ) {
    throw new InvalidOptionsError(
      MODULE,
      'tuning.traceContext',
      'must be a function, false (store no trace context) or omitted (OpenTelemetry when installed)',
    );
  }
  if (t.sqlExecutor !== undefined && typeof t.sqlExecutor !== 'function') {
    throw new InvalidOptionsError(
      MODULE,
      'tuning.sqlExecutor',
      'must be a function (tx) => SqlExecutor, or omitted (the stack is recognised from TransactionHost.tx)',
    );
  }
  if (connectionName !== undefined && (typeof connectionName !== 'string' || !connectionName)) {
    throw new InvalidOptionsError(MODULE, 'connectionName', 'must be a non-empty string');
  }
  return {
    schema,
    table,
    qualifiedTable: quoted,
    maxPayloadBytes: check.integer('tuning.maxPayloadBytes', t.maxPayloadBytes, 1_000_000),
    notifyChannel: notifyChannel(t.notifyChannel),
    notifyCoalesceMs: check.integer('tuning.notifyCoalesceMs', t.notifyCoalesceMs, 5, { min: 0 }),
    traceContext: t.traceContext === false ? undefined : (t.traceContext ?? otelTraceContext()),
    installSchema: check.boolean('tuning.installSchema', t.installSchema, false),
    verifySchema: check.boolean('tuning.verifySchema', t.verifySchema, true),
    metrics: check.metrics('metrics', options.metrics, 'nest_outbox_outbox_'),
    pressure: pressureOption(check, options.pressure),
    sqlExecutor: t.sqlExecutor ?? sqlExecutorOf,
    connectionName,
  };
}
