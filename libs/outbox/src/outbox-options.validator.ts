import { InvalidOptionsError } from '@nest-outbox/core';
import {
  DEFAULT_NOTIFY_CHANNEL,
  OptionChecks,
  qualifiedTable,
  sqlExecutorOf,
  sqlIdentifier,
} from '@nest-outbox/core/internal';
import { otelTraceContext } from './event/otel-trace-context';
import type { OutboxModuleOptions, ResolvedOutboxOptions } from './outbox-options.interface';

const MODULE = 'OutboxModule';

const check = new OptionChecks(MODULE);

function notifyChannel(value: unknown): string | false {
  if (value === undefined) return DEFAULT_NOTIFY_CHANNEL;
  if (value === false) return false;
  sqlIdentifier(MODULE, 'notifyChannel', value);
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
  check.renamed(options, { verifyTableOnStartup: 'verifySchema' });
  const schema = options.schema ?? 'public';
  const table = options.table ?? 'outbox';
  const quoted = qualifiedTable(MODULE, schema, table);
  if (
    options.traceContext !== undefined &&
    options.traceContext !== false &&
    typeof options.traceContext !== 'function'
  ) {
    throw new InvalidOptionsError(
      MODULE,
      'traceContext',
      'must be a function, false (store no trace context) or omitted (OpenTelemetry when installed)',
    );
  }
  if (options.sqlExecutor !== undefined && typeof options.sqlExecutor !== 'function') {
    throw new InvalidOptionsError(
      MODULE,
      'sqlExecutor',
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
    maxPayloadBytes: check.integer('maxPayloadBytes', options.maxPayloadBytes, 1_000_000),
    notifyChannel: notifyChannel(options.notifyChannel),
    notifyCoalesceMs: check.integer('notifyCoalesceMs', options.notifyCoalesceMs, 5, { min: 0 }),
    traceContext:
      options.traceContext === false ? undefined : (options.traceContext ?? otelTraceContext()),
    installSchema: check.boolean('installSchema', options.installSchema, false),
    verifySchema: check.boolean('verifySchema', options.verifySchema, true),
    metrics: check.metrics('metrics', options.metrics, 'nest_outbox_outbox_'),
    pressure: pressureOption(check, options.pressure),
    sqlExecutor: options.sqlExecutor ?? sqlExecutorOf,
    connectionName,
  };
}
