import { InvalidOptionsError } from '@nest-outbox/core';
import {
  SQL_ISOLATION_LEVELS,
  type SqlExecutor,
  type SqlIsolationLevel,
} from '@nest-outbox/core/internal';

/**
 * Sets the isolation level of the transaction just opened, as its first statement: the
 * same SQL on every data stack, whatever its adapter calls the option.
 * @internal
 */
export async function setIsolationLevel(sql: SqlExecutor, level: SqlIsolationLevel): Promise<void> {
  if (!SQL_ISOLATION_LEVELS.includes(level)) {
    throw new InvalidOptionsError(
      'OutboxTransactional',
      'isolationLevel',
      `must be one of ${SQL_ISOLATION_LEVELS.join(', ')}`,
    );
  }
  await sql.query(`SET TRANSACTION ISOLATION LEVEL ${level}`, []);
}
