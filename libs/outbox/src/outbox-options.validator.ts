import {
  DEFAULT_NOTIFY_CHANNEL,
  InvalidOptionsError,
  qualifiedTable,
  sqlIdentifier,
} from '@nest-outbox/core';
import type { OutboxModuleOptions, ResolvedOutboxOptions } from './outbox-options.interface';

const MODULE = 'OutboxModule';

function positiveInteger(option: string, value: unknown, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new InvalidOptionsError(
      MODULE,
      option,
      `must be an integer >= ${min} (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}

function notifyChannel(value: unknown): string | false {
  if (value === undefined) return DEFAULT_NOTIFY_CHANNEL;
  if (value === false) return false;
  sqlIdentifier(MODULE, 'notifyChannel', value);
  return value as string;
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
  const schema = options.schema ?? 'public';
  const table = options.table ?? 'outbox';
  const quoted = qualifiedTable(MODULE, schema, table);
  if (options.traceContext !== undefined && typeof options.traceContext !== 'function') {
    throw new InvalidOptionsError(MODULE, 'traceContext', 'must be a function (or omitted)');
  }
  if (connectionName !== undefined && (typeof connectionName !== 'string' || !connectionName)) {
    throw new InvalidOptionsError(MODULE, 'connectionName', 'must be a non-empty string');
  }
  return {
    schema,
    table,
    qualifiedTable: quoted,
    maxPayloadBytes: positiveInteger('maxPayloadBytes', options.maxPayloadBytes, 1_000_000),
    notifyChannel: notifyChannel(options.notifyChannel),
    notifyCoalesceMs: positiveInteger('notifyCoalesceMs', options.notifyCoalesceMs, 5, 0),
    traceContext: options.traceContext,
    verifyTableOnStartup: options.verifyTableOnStartup ?? true,
    connectionName,
  };
}
