import { InvalidOptionsError } from './nest-outbox.error';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * `value` double-quoted, when it is a plain lower-case PostgreSQL identifier (identifiers are
 * interpolated into SQL, never bound).
 * @throws InvalidOptionsError naming the module and option
 * @publicApi
 */
export function sqlIdentifier(moduleName: string, option: string, value: unknown): string {
  if (typeof value !== 'string' || !IDENTIFIER.test(value)) {
    throw new InvalidOptionsError(
      moduleName,
      option,
      `must be a lower-case SQL identifier matching ${IDENTIFIER.source} (got ${JSON.stringify(value)}); ` +
        'use letters, digits and underscores only, for example "outbox" or "app_events"',
    );
  }
  return `"${value}"`;
}

/** `"schema"."table"` from two validated identifiers (options `schema` and `option`). @publicApi */
export function qualifiedTable(module: string, schema: string, table: string, option = 'table') {
  return `${sqlIdentifier(module, 'schema', schema)}.${sqlIdentifier(module, option, table)}`;
}
