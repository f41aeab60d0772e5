import { heldBehindParkedSql } from '@nest-outbox/core/internal';

/**
 * The pressure sampler's one statement: the backlog (unpublished, unskipped, unparked rows)
 * and the age of its oldest row that is not held back behind a parked event of its aggregate
 * (an operator's matter: a poisoned aggregate must not refuse every command), over the
 * relay's pending index.
 * @internal
 */
export function outboxPressureSql(table: string): string {
  const pending = (a: string) =>
    `${a}.published_at IS NULL AND ${a}.skipped_at IS NULL AND ${a}.parked_at IS NULL`;
  return `SELECT count(*)::int AS backlog,
       (SELECT extract(epoch FROM now() - f.created_at) * 1000 FROM ${table} f
         WHERE ${pending('f')} AND NOT ${heldBehindParkedSql(table, 'f')}
         ORDER BY f.id LIMIT 1)::float8 AS oldest_age_ms
  FROM ${table} s WHERE ${pending('s')}`;
}
