import { InvalidOptionsError } from '@nest-outbox/core';
import { type SqlExecutor, type SqlIsolationLevel } from '@nest-outbox/core/internal';

const LEVELS: readonly SqlIsolationLevel[] = [
  'READ UNCOMMITTED',
  'READ COMMITTED',
  'REPEATABLE READ',
  'SERIALIZABLE',
];

/**
 * Sets the isolation level of the transaction just opened, as its first statement: the
 * same SQL on every data stack, whatever its adapter calls the option.
 * @internal
 */
export async function setIsolationLevel(sql: SqlExecutor, level: SqlIsolationLevel): Promise<void> {
  if (!LEVELS.includes(level)) {
    throw new InvalidOptionsError(
      'OutboxTransactional',
      'isolationLevel',
      `must be one of ${LEVELS.join(', ')}`,
    );
  }
  await sql.query(`SET TRANSACTION ISOLATION LEVEL ${level}`, []);
}
