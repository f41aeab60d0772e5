import { InvalidOptionsError } from '@nest-outbox/core';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * `value` double-quoted for SQL, when it is a plain lower-case PostgreSQL identifier (the
 * sample apps interpolate their schema name into DDL, so anything else is refused).
 * @throws InvalidOptionsError naming the app and the variable
 */
export function pgIdentifier(app: string, variable: string, value: string): string {
  if (!IDENTIFIER.test(value)) {
    throw new InvalidOptionsError(
      app,
      variable,
      `must be a lower-case SQL identifier matching ${IDENTIFIER.source} (got "${value}"), for example "orders"`,
    );
  }
  return `"${value}"`;
}
